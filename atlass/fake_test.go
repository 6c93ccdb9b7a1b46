package atlass

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
)

// memDB is an in-memory ToolDB that keeps the database's contract: Add
// parses and verifies before storing and refuses a taken name; Search
// ranks by shared words and filters by state (approved by default).
type memDB struct {
	mu   sync.Mutex
	recs []Record
	now  func() time.Time
}

var _ ToolDB = (*memDB)(nil)

func newMemDB() *memDB {
	return &memDB{now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
}

func (d *memDB) Add(ctx context.Context, run envs.Tool, t toollib.Tool, p Provenance, state State) (int64, error) {
	if _, err := toollib.ParseTool(t.Source); err != nil {
		return 0, err
	}
	d.mu.Lock()
	taken := slices.ContainsFunc(d.recs, func(r Record) bool { return r.Tool.Name == t.Name })
	d.mu.Unlock()
	if taken {
		return 0, fmt.Errorf("memdb: add %s: a tool of that name is already stored", t.Name)
	}
	if err := toollib.Verify(ctx, run, t); err != nil {
		return 0, fmt.Errorf("memdb: add %s: %w", t.Name, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	id := int64(len(d.recs) + 1)
	d.recs = append(d.recs, Record{ID: id, Tool: t, State: state, Provenance: p, Verified: true, Created: d.now()})
	return id, nil
}

func (d *memDB) Search(_ context.Context, query string, k int, states ...State) ([]Record, error) {
	if len(states) == 0 {
		states = []State{Approved}
	}
	q := strings.Fields(strings.ToLower(query))
	d.mu.Lock()
	defer d.mu.Unlock()
	type hit struct {
		r     Record
		score int
	}
	var hits []hit
	for _, r := range d.recs {
		words := strings.Fields(strings.ToLower(r.Tool.Name + " " + r.Tool.Doc))
		score := 0
		for _, w := range q {
			if slices.Contains(words, w) {
				score++
			}
		}
		if score > 0 && slices.Contains(states, r.State) {
			hits = append(hits, hit{r, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(b.score, a.score) })
	var out []Record
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.r)
	}
	return out, nil
}

func (d *memDB) Get(_ context.Context, id int64) (Record, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id < 1 || int(id) > len(d.recs) {
		return Record{}, fmt.Errorf("memdb: no tool %d", id)
	}
	return d.recs[id-1], nil
}

func (d *memDB) ByName(_ context.Context, name string) (Record, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.recs {
		if r.Tool.Name == name {
			return r, nil
		}
	}
	return Record{}, fmt.Errorf("memdb: %s: %w", name, toollib.ErrNotFound)
}

func (d *memDB) Approve(_ context.Context, id int64, who string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id < 1 || int(id) > len(d.recs) {
		return fmt.Errorf("memdb: no tool %d", id)
	}
	r := &d.recs[id-1]
	r.State, r.Decider, r.DecidedAt = Approved, who, d.now()
	return nil
}

func (d *memDB) MarkUsed(_ context.Context, ids ...int64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		if id < 1 || int(id) > len(d.recs) {
			return fmt.Errorf("memdb: no tool %d", id)
		}
		d.recs[id-1].Uses++
	}
	return nil
}

func (d *memDB) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.recs)
}

// testDB is a ToolDB that counts its tools.
type testDB interface {
	ToolDB
	Len() int
}

// forEachDB runs test against the in-memory fake and the SQLite database.
func forEachDB(t *testing.T, test func(t *testing.T, db testDB)) {
	t.Run("memdb", func(t *testing.T) { test(t, newMemDB()) })
	t.Run("sqlite", func(t *testing.T) {
		db, err := toollib.OpenDB(filepath.Join(t.TempDir(), "tools.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		test(t, db)
	})
}

// store adds the tool of src in state, failing the test on an error.
func store(t *testing.T, d ToolDB, run envs.Tool, src string, state State) int64 {
	t.Helper()
	tool, err := toollib.ParseTool(src)
	if err != nil {
		t.Fatal(err)
	}
	id, err := d.Add(context.Background(), run, tool, Provenance{Source: "human"}, state)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// recorder counts the calls a tool gets and keeps their inputs.
type recorder struct {
	envs.Tool
	mu     sync.Mutex
	inputs []string
}

func (r *recorder) Call(ctx context.Context, input string) envs.Result {
	r.mu.Lock()
	r.inputs = append(r.inputs, input)
	r.mu.Unlock()
	return r.Tool.Call(ctx, input)
}

func (r *recorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.inputs)
}

// newSandbox is a one-worker code tool closed with the test.
func newSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	cfg := sandbox.DefaultConfig()
	cfg.Workers = 1
	s, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
