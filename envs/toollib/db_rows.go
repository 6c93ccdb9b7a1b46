package toollib

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// columns are the tools columns a Record is read from, in scanRecord's
// order.
var columns = []string{"id", "name", "doc", "signature", "source", "cases", "state", "verified", "verify_log",
	"task", "run", "origin", "uses", "decider", "decided_at", "reason", "created"}

// toolColumns is the select list of a Record, each column qualified by
// table when it is not "".
func toolColumns(table string) string {
	if table == "" {
		return strings.Join(columns, ", ")
	}
	return table + "." + strings.Join(columns, ", "+table+".")
}

// rowScanner is a *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(dest ...any) error }

// scanRecord reads one row of toolColumns.
func scanRecord(s rowScanner) (Record, error) {
	var r Record
	var cases, state, decided, created string
	err := s.Scan(&r.ID, &r.Tool.Name, &r.Tool.Doc, &r.Tool.Signature, &r.Tool.Source, &cases, &state,
		&r.Verified, &r.VerifyLog, &r.Provenance.Task, &r.Provenance.Run, &r.Provenance.Source,
		&r.Uses, &r.Decider, &decided, &r.Reason, &created)
	if err != nil {
		return Record{}, err
	}
	if err := json.Unmarshal([]byte(cases), &r.Tool.Cases); err != nil {
		return Record{}, fmt.Errorf("tool %s: cases: %w", r.Tool.Name, err)
	}
	r.State = State(state)
	if r.DecidedAt, err = parseStamp(decided); err != nil {
		return Record{}, fmt.Errorf("tool %s: decided_at: %w", r.Tool.Name, err)
	}
	if r.Created, err = parseStamp(created); err != nil {
		return Record{}, fmt.Errorf("tool %s: created: %w", r.Tool.Name, err)
	}
	return r, nil
}

// parseStamp reads a stored time; "" is the zero time.
func parseStamp(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

// stateFilter returns the placeholders and arguments of "state IN (...)"
// for states, approved only when none is given.
func stateFilter(states []State) (string, []any, error) {
	if len(states) == 0 {
		states = []State{Approved}
	}
	args := make([]any, len(states))
	for i, s := range states {
		if _, err := ParseState(string(s)); err != nil {
			return "", nil, err
		}
		args[i] = string(s)
	}
	return strings.TrimSuffix(strings.Repeat("?, ", len(states)), ", "), args, nil
}

// query returns the records a select of toolColumns yields. Its
// statements are prepared once and kept until Close: a search runs for
// every trajectory, and parsing the statement was half its cost.
func (d *DB) query(ctx context.Context, q string, args ...any) ([]Record, error) {
	stmt, err := d.prepared(q)
	if err != nil {
		return nil, fmt.Errorf("toollib: %s: %w", d.path, err)
	}
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("toollib: %s: %w", d.path, err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("toollib: %s: %w", d.path, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("toollib: %s: %w", d.path, err)
	}
	return out, nil
}

// prepared returns the statement of q, preparing it on first use.
func (d *DB) prepared(q string) (*sql.Stmt, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st, ok := d.stmts[q]; ok {
		return st, nil
	}
	st, err := d.db.Prepare(q)
	if err != nil {
		return nil, err
	}
	if d.stmts == nil {
		d.stmts = map[string]*sql.Stmt{}
	}
	d.stmts[q] = st
	return st, nil
}
