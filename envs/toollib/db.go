package toollib

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, FTS5 included

	"github.com/artist-rl/artist/envs"
)

// State is where a tool stands in review. Only approved tools are
// retrieved for solving; pending ones run only inside verification.
type State string

const (
	Pending  State = "pending"  // waiting for a decision
	Approved State = "approved" // may be retrieved and run
	Rejected State = "rejected" // kept, with the reason, never retrieved
)

// States lists every state, in review order.
var States = []State{Pending, Approved, Rejected}

// ParseState reads a state name; the error lists the valid ones.
func ParseState(s string) (State, error) {
	if st := State(s); slices.Contains(States, st) {
		return st, nil
	}
	return "", fmt.Errorf("toollib: unknown state %q (valid: pending, approved, rejected)", s)
}

// Provenance says where a tool came from: the task and run that made it
// (empty when none) and how it arrived.
type Provenance struct {
	Task, Run string
	Source    string // one of Sources
}

// Sources are the valid Provenance.Source values: written by a person,
// by the ATLASS tool generator, grown by the policy in a rollout, or
// imported from a JSON library file.
var Sources = []string{"human", "atlass", "grow", "import"}

// Record is a stored tool with its review and use history.
type Record struct {
	ID         int64
	Tool       Tool
	State      State
	Provenance Provenance
	Verified   bool   // every case passed when the tool was added
	VerifyLog  string // one line per case, as verification reported it
	Uses       int    // trajectories or solutions that called the tool
	Decider    string // who approved or rejected it; "" while pending
	DecidedAt  time.Time
	Reason     string // why it was rejected
	Created    time.Time
}

// ErrNotFound is returned (wrapped) for an id or name the database lacks.
var ErrNotFound = errors.New("toollib: no such tool")

// DB is the tool database: an SQLite file in WAL mode, so that several
// processes may read it while one writes. A DB is safe for concurrent
// use.
type DB struct {
	db     *sql.DB
	path   string
	tmpDir string // OpenCopy's folder, removed by Close

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // prepared selects, by text
}

// OpenDB opens the database at path, creating it when missing and
// migrating it to the latest schema. A JSON library file (a .json path,
// or a file that starts with JSON) is refused with the command that
// converts it.
func OpenDB(path string) (*DB, error) { return openDB(path, len(migrations)) }

// openDB opens path migrated to version upTo at most.
func openDB(path string, upTo int) (*DB, error) {
	if err := notJSON(path); err != nil {
		return nil, err
	}
	// busy_timeout lets writers of several processes queue; _txlock
	// takes the write lock at BEGIN, so two writers never deadlock.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("toollib: open %s: %w", path, err)
	}
	if err := migrate(context.Background(), db, upTo); err != nil {
		db.Close()
		return nil, fmt.Errorf("toollib: open %s: %w", path, err)
	}
	return &DB{db: db, path: path}, nil
}

// notJSON refuses a JSON tool library where a database is expected.
func notJSON(path string) error {
	isJSON := strings.EqualFold(filepath.Ext(path), ".json")
	if f, err := os.Open(path); err == nil {
		head := make([]byte, 1)
		if n, _ := f.Read(head); n == 1 && (head[0] == '{' || head[0] == '[') {
			isJSON = true
		}
		f.Close()
	}
	if isJSON {
		return fmt.Errorf("toollib: %s is a JSON tool library, not a tool database: convert it with `artist tools import -db tools.db %s` and use tools.db", path, path)
	}
	return nil
}

// Close closes the database (and removes an OpenCopy's file).
func (d *DB) Close() error {
	d.mu.Lock()
	for _, st := range d.stmts {
		st.Close()
	}
	d.stmts = nil
	d.mu.Unlock()
	err := d.db.Close()
	if d.tmpDir != "" {
		err = errors.Join(err, os.RemoveAll(d.tmpDir))
	}
	return err
}

// Path returns the file the database lives in.
func (d *DB) Path() string { return d.path }

// Add verifies t's cases in run (the code tool; see Verify) and stores t
// in state with provenance p, returning its id. It refuses a tool whose
// Source does not parse as one documented func named t.Name (see
// ParseTool), a name already stored in any state, an unknown state or
// source, and a tool whose cases fail, naming the failing case. A tool
// added as approved or rejected records p.Source as its decider and the
// time of adding as the decision's; Approve and Reject name a person.
func (d *DB) Add(ctx context.Context, run envs.Tool, t Tool, p Provenance, state State) (int64, error) {
	if err := checkTool(t); err != nil {
		return 0, err
	}
	if !slices.Contains(States, state) {
		return 0, fmt.Errorf("toollib: add %s: unknown state %q (valid: pending, approved, rejected)", t.Name, state)
	}
	if !slices.Contains(Sources, p.Source) {
		return 0, fmt.Errorf("toollib: add %s: unknown provenance source %q (valid: %s)", t.Name, p.Source, strings.Join(Sources, ", "))
	}
	if _, err := d.ByName(ctx, t.Name); err == nil {
		return 0, errDuplicate(t.Name)
	} else if !errors.Is(err, ErrNotFound) {
		return 0, err
	}
	if run == nil {
		return 0, fmt.Errorf("toollib: add %s: no code tool to verify it in", t.Name)
	}
	if err := Verify(ctx, run, t); err != nil {
		return 0, fmt.Errorf("toollib: add %s: %w", t.Name, err)
	}
	return d.insert(ctx, t, p, state)
}

// checkTool rejects a tool whose name or source is not that of one
// documented function.
func checkTool(t Tool) error {
	if err := checkName(t.Name); err != nil {
		return err
	}
	p, err := ParseTool(t.Source)
	if err != nil {
		return fmt.Errorf("toollib: add %s: %w", t.Name, err)
	}
	if p.Name != t.Name {
		return fmt.Errorf("toollib: add %s: source declares %s", t.Name, p.Name)
	}
	for _, c := range t.Cases {
		if err := checkCase(c, t.Name); err != nil {
			return fmt.Errorf("toollib: add %s: case %q: %w", t.Name, c.Expr, err)
		}
	}
	return nil
}

// checkCase holds a case given with a tool to what ParseTool reads from
// an example line, since its text becomes part of the check program.
func checkCase(c Case, name string) error {
	e, err := parser.ParseExpr(c.Expr)
	if err != nil || !calls(e, name) || strings.ContainsAny(c.Expr, "\n;") {
		return fmt.Errorf("not one expression that calls %s", name)
	}
	want := c.Want
	if c.Tol != "" {
		want += " (±" + c.Tol + ")"
	}
	back, err := parseWant(want, name)
	if err != nil {
		return err
	}
	if back.Want != c.Want || back.Tol != c.Tol {
		return fmt.Errorf("want %q and tolerance %q do not read back as themselves", c.Want, c.Tol)
	}
	return nil
}

func errDuplicate(name string) error {
	return fmt.Errorf("toollib: add %s: a tool of that name is already in the database", name)
}

// insert stores a verified tool and its search entry in one transaction.
func (d *DB) insert(ctx context.Context, t Tool, p Provenance, state State) (int64, error) {
	cases, err := json.Marshal(t.Cases)
	if err != nil {
		return 0, fmt.Errorf("toollib: add %s: %w", t.Name, err)
	}
	now := stamp(time.Now())
	decider, decided := "", ""
	if state != Pending {
		decider, decided = p.Source, now
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("toollib: add %s: %w", t.Name, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO tools (name, doc, signature, source, cases, state, verified, verify_log,
		task, run, origin, decider, decided_at, created) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
		t.Name, t.Doc, t.Signature, t.Source, string(cases), string(state), verifyLog(t),
		p.Task, p.Run, p.Source, decider, decided, now)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE constraint failed") { // added while verifying
			return 0, errDuplicate(t.Name)
		}
		return 0, fmt.Errorf("toollib: add %s: %w", t.Name, err)
	}
	id, err := res.LastInsertId()
	if err == nil {
		err = index(ctx, tx, id, t)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return 0, fmt.Errorf("toollib: add %s: %w", t.Name, err)
	}
	return id, nil
}

// verifyLog is the log of a tool whose cases all passed.
func verifyLog(t Tool) string {
	var b strings.Builder
	for _, c := range t.Cases {
		fmt.Fprintf(&b, "ok %s\n", caseLine(c))
	}
	return b.String()
}

// caseLine writes a case back as its example line.
func caseLine(c Case) string {
	if c.Tol != "" {
		return c.Expr + " == " + c.Want + " (±" + c.Tol + ")"
	}
	return c.Expr + " == " + c.Want
}

// stamp is how times are stored: RFC 3339 in UTC, sortable as text.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Get returns the tool with id; ErrNotFound when there is none.
func (d *DB) Get(ctx context.Context, id int64) (Record, error) {
	return d.one(ctx, fmt.Sprintf("id %d", id), `SELECT `+toolColumns("")+` FROM tools WHERE id = ?`, id)
}

// ByName returns the tool named name, in any state; ErrNotFound when
// there is none.
func (d *DB) ByName(ctx context.Context, name string) (Record, error) {
	return d.one(ctx, fmt.Sprintf("name %q", name), `SELECT `+toolColumns("")+` FROM tools WHERE name = ?`, name)
}

func (d *DB) one(ctx context.Context, what, query string, arg any) (Record, error) {
	r, err := scanRecord(d.db.QueryRowContext(ctx, query, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, fmt.Errorf("%w with %s in %s", ErrNotFound, what, d.path)
	}
	if err != nil {
		return Record{}, fmt.Errorf("toollib: %s: %w", d.path, err)
	}
	return r, nil
}

// List returns the tools in the given states (approved only when none is
// given), sorted by name.
func (d *DB) List(ctx context.Context, states ...State) ([]Record, error) {
	in, args, err := stateFilter(states)
	if err != nil {
		return nil, err
	}
	return d.query(ctx, `SELECT `+toolColumns("")+` FROM tools WHERE state IN (`+in+`) ORDER BY name`, args...)
}

// Len returns the number of tools in every state, or -1 when the database
// cannot be read.
func (d *DB) Len() int {
	var n int
	if err := d.db.QueryRow(`SELECT count(*) FROM tools`).Scan(&n); err != nil {
		return -1
	}
	return n
}

// Approve marks the tool approved by who, now. Approving a rejected tool
// clears its reason; approving an approved one is an error.
func (d *DB) Approve(ctx context.Context, id int64, who string) error {
	return d.decide(ctx, id, who, Approved, "")
}

// Reject marks the tool rejected by who, now, for reason, which must not
// be empty. A rejected tool keeps its name: a new tool needs another.
func (d *DB) Reject(ctx context.Context, id int64, who, reason string) error {
	if strings.TrimSpace(reason) == "" {
		return fmt.Errorf("toollib: reject %d: give the reason", id)
	}
	return d.decide(ctx, id, who, Rejected, reason)
}

// decide records a decision on tool id.
func (d *DB) decide(ctx context.Context, id int64, who string, to State, reason string) error {
	verb := map[State]string{Approved: "approve", Rejected: "reject"}[to]
	if strings.TrimSpace(who) == "" {
		return fmt.Errorf("toollib: %s %d: name who decides", verb, id)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("toollib: %s %d: %w", verb, id, err)
	}
	defer tx.Rollback()
	var cur, decider, at string
	err = tx.QueryRowContext(ctx, `SELECT state, decider, decided_at FROM tools WHERE id = ?`, id).Scan(&cur, &decider, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w with id %d in %s", ErrNotFound, id, d.path)
	case err != nil:
		return fmt.Errorf("toollib: %s %d: %w", verb, id, err)
	case State(cur) == to:
		return fmt.Errorf("toollib: %s %d: already %s by %s at %s", verb, id, to, decider, at)
	}
	_, err = tx.ExecContext(ctx, `UPDATE tools SET state = ?, decider = ?, decided_at = ?, reason = ? WHERE id = ?`,
		string(to), who, stamp(time.Now()), reason, id)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("toollib: %s %d: %w", verb, id, err)
	}
	return nil
}

// MarkUsed adds one use to each tool of ids (an id given twice counts
// twice), in one transaction: an unknown id changes nothing and is an
// error.
func (d *DB) MarkUsed(ctx context.Context, ids ...int64) error {
	if len(ids) == 0 {
		return nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("toollib: mark used: %w", err)
	}
	defer tx.Rollback()
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `UPDATE tools SET uses = uses + 1 WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("toollib: mark used: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("toollib: mark used: %w with id %d in %s", ErrNotFound, id, d.path)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("toollib: mark used: %w", err)
	}
	return nil
}
