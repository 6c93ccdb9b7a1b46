package taubench

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/artist-rl/artist/internal/pyval"
)

// Record is one conformance record: a task's gold actions replayed on a
// fresh database, with every observation, the final hash and the records
// that changed.
type Record struct {
	Env     string
	Split   string
	Index   int
	Actions []RecordedAction
	DBHash  string
	// Changed maps collection to record key to the record's full new
	// value (nil for a deleted record), for every top-level record whose
	// JSON text differs from the fresh data.
	Changed *pyval.Dict
}

// RecordedAction is one replayed gold action and its observation.
type RecordedAction struct {
	Action
	Output string
}

// Replay runs a task's gold actions in order through a fresh env of the
// domain, transfer_to_human_agents included (it changes nothing), and
// returns the conformance record. Failing actions keep their error
// observation. The only error is ErrNoOutput.
func Replay(d *Domain, split string, index int, t Task) (*Record, error) {
	env := d.NewEnv()
	rec := &Record{Env: d.Name, Split: split, Index: index}
	for _, a := range t.Actions {
		out, err := env.Call(a.Name, pyval.DeepCopy(a.Kwargs).(*pyval.Dict))
		if err != nil {
			return nil, fmt.Errorf("taubench: replay %s %s task %d, action %s: %w", d.Name, split, index, a.Name, err)
		}
		rec.Actions = append(rec.Actions, RecordedAction{Action: a, Output: out})
	}
	rec.DBHash = env.Hash()
	rec.Changed = Changed(d.db, env.DB())
	return rec, nil
}

// Changed compares two databases record by record and returns, per
// collection with a difference, the new value of every record whose JSON
// text differs (nil for a record that is gone). Collections and record
// keys are sorted.
func Changed(before, after *pyval.Dict) *pyval.Dict {
	out := pyval.NewDict()
	for _, c := range sortedKeys(before, after) {
		b, a := before.Dict(c), after.Dict(c)
		diff := pyval.NewDict()
		for _, k := range sortedKeys(b, a) {
			bv, bok := getOrNil(b, k)
			av, aok := getOrNil(a, k)
			switch {
			case !aok:
				diff.Set(k, nil)
			case !bok || !pyval.Identical(bv, av):
				diff.Set(k, av)
			}
		}
		if diff.Len() > 0 {
			out.Set(c, diff)
		}
	}
	return out
}

func getOrNil(d *pyval.Dict, k string) (any, bool) {
	if d == nil {
		return nil, false
	}
	return d.Get(k)
}

func sortedKeys(ds ...*pyval.Dict) []string {
	seen := map[string]bool{}
	var keys []string
	for _, d := range ds {
		if d == nil {
			continue
		}
		for _, k := range d.Keys() {
			if s := pyval.Str(k); !seen[s] {
				seen[s] = true
				keys = append(keys, s)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// Value returns the record as its JSON value, keys in the conformance
// files' order: env, split, index, actions, db_hash, changed.
func (r *Record) Value() *pyval.Dict {
	acts := make([]any, len(r.Actions))
	for i, a := range r.Actions {
		acts[i] = pyval.NewDict("name", a.Name, "kwargs", a.Kwargs, "output", a.Output)
	}
	changed := r.Changed
	if changed == nil {
		changed = pyval.NewDict()
	}
	return pyval.NewDict("env", r.Env, "split", r.Split, "index", int64(r.Index), "actions", acts,
		"db_hash", r.DBHash, "changed", changed)
}

// JSONLine returns the record as one line of a conformance file (Python's
// json.dumps form, non-ASCII escaped), without the newline.
func (r *Record) JSONLine() (string, error) {
	s, err := pyval.JSON(r.Value())
	if err != nil {
		return "", errors.Join(errors.New("taubench: encode record"), err)
	}
	return s, nil
}

// WriteRecords replays the tasks of one split (all of them, or those
// whose index only accepts) and writes one conformance record per line.
func WriteRecords(w io.Writer, d *Domain, split string, tasks []Task, only func(index int) bool) error {
	bw := bufio.NewWriter(w)
	for i, t := range tasks {
		if only != nil && !only(i) {
			continue
		}
		rec, err := Replay(d, split, i, t)
		if err != nil {
			return err
		}
		line, err := rec.JSONLine()
		if err != nil {
			return err
		}
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
