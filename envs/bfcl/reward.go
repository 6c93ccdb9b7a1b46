package bfcl

import (
	"fmt"
	"strconv"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Paper's reward values (ARTIST, function calling).
const (
	fcStateScore    = 0.5   // every state attribute equals the gold end state
	fcFunctionScore = 0.5   // every gold call made
	fcPerTag        = 0.025 // each of the three tag pairs present
	fcStrictScore   = 0.1   // whole response in the strict order
)

// FC scores trajectories of the entries of one BFCL v3 multi-turn
// category. task.ID names the entry; a task whose ID is not an entry of
// the category is not judged by State or Function. The trajectory's tool
// calls are t.Calls[i].Input, each one or several calls as ParseCalls
// reads them; an input that does not parse counts as no call.
//
// An FC is safe for concurrent use: gold end states are computed once per
// entry (Golds) and shared.
type FC struct {
	data     *Data
	entries  map[string]Entry
	params   map[string][]string // function name -> parameter names in signature order
	format   format.Format
	category string

	golds *Golds
}

// NewFC reads the entries of category from d and the function
// documentation of every class (FunctionDocs, for parameter order). An
// unreadable category or documentation, or an invalid format, is an error.
// The function-calling text reads the format's think tag as reasoning,
// its code tag as the calls and its output tag as their results.
func NewFC(d *Data, category string, f format.Format) (*FC, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("reward: fc: %w", err)
	}
	es, err := d.Entries(category)
	if err != nil {
		return nil, fmt.Errorf("reward: fc entries: %w", err)
	}
	params, err := readParams(d)
	if err != nil {
		return nil, err
	}
	fc := &FC{data: d, entries: map[string]Entry{}, params: params, format: f, category: category, golds: NewGolds(d)}
	for _, e := range es {
		fc.entries[e.ID] = e
	}
	return fc, nil
}

// readParams maps each documented function of the eight classes to its
// parameter names, in the documented order, which is the order of the
// Python signature.
func readParams(d *Data) (map[string][]string, error) {
	out := map[string][]string{}
	for _, class := range Classes() {
		docs, err := FunctionDocs(d, class)
		if err != nil {
			return nil, fmt.Errorf("reward: fc: %w", err)
		}
		for _, f := range docs {
			out[f.Name] = f.Params
		}
	}
	return out, nil
}

// State scores 0.5 × matched / compared, where compared counts the public
// attributes of every involved class (as in Env.State) and matched
// those equal, with Python equality and ignoring the file system's parent
// links as the official checker does, to the end state of the entry's
// ground truth. The trajectory's end state is what running all its calls,
// in order, on fresh instances of the entry (long-context extensions
// included), every function callable, leaves: the state its rollout's
// session recorded (Trajectory.ToolState, an *End) when that session ran
// exactly those calls and refused none as withheld, else a replay. It
// does not apply to an unknown entry, to an entry without state
// attributes (math only) or when the entry's instances cannot be built.
func (fc *FC) State() reward.Func {
	return func(t *rollout.Trajectory, task envs.Task) (float64, bool) {
		e, ok := fc.entries[task.ID]
		if !ok {
			return 0, false
		}
		g := fc.golds.of(e)
		if g.err != nil {
			return 0, false
		}
		calls := trajectoryCalls(t)
		got := recordedState(t, e.ID, calls)
		if got == nil {
			env, err := NewEnv(fc.data, e.InvolvedClasses, e.InitialConfig, e.LongContext())
			if err != nil {
				return 0, false
			}
			for _, c := range calls {
				env.ExecuteCall(c)
			}
			got = env.State()
		}
		matched, compared := compareStates(got, g.final())
		if compared == 0 {
			return 0, false
		}
		return fcStateScore * float64(matched) / float64(compared), true
	}
}

// recordedState is the end state t's session recorded, when it ran
// exactly calls on entry id with every function callable; else nil.
func recordedState(t *rollout.Trajectory, id string, calls []Call) *Dict {
	end, ok := t.ToolState.(*End)
	if !ok || !end.Exact || end.Entry != id || len(end.Calls) != len(calls) {
		return nil
	}
	for i, c := range calls {
		if end.Calls[i] != c.String() {
			return nil
		}
	}
	return end.State()
}

// trajectoryCalls parses every call of t, in order, skipping inputs that
// do not parse.
func trajectoryCalls(t *rollout.Trajectory) []Call {
	var out []Call
	for _, c := range t.Calls {
		cs, err := ParseCalls(c.Input)
		if err == nil {
			out = append(out, cs...)
		}
	}
	return out
}

// compareStates counts the attributes of every class of want and those
// equal in got.
func compareStates(got, want *Dict) (matched, compared int) {
	for _, class := range want.Keys() {
		wv, _ := want.Get(class)
		gv, _ := got.Get(class)
		wd, _ := wv.(*Dict)
		gd, _ := gv.(*Dict)
		if wd == nil {
			continue
		}
		for _, attr := range wd.Keys() {
			compared++
			a, _ := wd.Get(attr)
			if gd == nil {
				continue
			}
			b, ok := gd.Get(attr)
			if ok && Equal(StripParents(DeepCopy(a)), StripParents(DeepCopy(b))) {
				matched++
			}
		}
	}
	return matched, compared
}

// Function scores 0.5 × matched / gold, where gold counts the calls of the
// entry's ground truth over all turns and matched the gold calls paired,
// one for one (multiset matching), with a call of the trajectory of the
// same name and arguments. Arguments are compared by parameter name, with
// positional arguments named after the documented signature, and values
// with Python equality; an argument left at its default does not equal
// one written out. Extra calls do not lower the score. It does not apply
// to an unknown entry or one without gold calls.
func (fc *FC) Function() reward.Func {
	return func(t *rollout.Trajectory, task envs.Task) (float64, bool) {
		e, ok := fc.entries[task.ID]
		if !ok {
			return 0, false
		}
		var gold []normCall
		for _, turn := range e.GroundTruth {
			for _, s := range turn {
				if c, err := ParseCall(s); err == nil {
					gold = append(gold, fc.normalise(c))
				}
			}
		}
		if len(gold) == 0 {
			return 0, false
		}
		used := make([]bool, len(gold))
		matched := 0
		for _, c := range trajectoryCalls(t) {
			n := fc.normalise(c)
			for i, g := range gold {
				if !used[i] && n.equal(g) {
					used[i] = true
					matched++
					break
				}
			}
		}
		return fcFunctionScore * float64(matched) / float64(len(gold)), true
	}
}

// normCall is a call with its arguments bound to parameter names. A call
// that binds one name twice is invalid and equals nothing.
type normCall struct {
	name    string
	args    map[string]any
	invalid bool
}

func (fc *FC) normalise(c Call) normCall {
	n := normCall{name: c.Name, args: map[string]any{}}
	ps := fc.params[c.Name]
	set := func(k string, v any) {
		if _, dup := n.args[k]; dup {
			n.invalid = true
		}
		n.args[k] = v
	}
	for i, v := range c.Args {
		if i < len(ps) {
			set(ps[i], v)
		} else {
			set("#"+strconv.Itoa(i), v)
		}
	}
	for _, kw := range c.Kwargs {
		set(kw.Name, kw.Value)
	}
	return n
}

func (a normCall) equal(b normCall) bool {
	if a.invalid || b.invalid || a.name != b.name || len(a.args) != len(b.args) {
		return false
	}
	for k, v := range a.args {
		w, ok := b.args[k]
		if !ok || !Equal(v, w) {
			return false
		}
	}
	return true
}
