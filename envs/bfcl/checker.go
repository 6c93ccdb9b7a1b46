package bfcl

import (
	"fmt"
	"sort"
)

// AddedFunctionsMessage is the user message of a missing-function turn: the
// withheld functions are offered again and the policy is asked to go on.
const AddedFunctionsMessage = "I have updated some more functions you can choose from. What about now?"

// Error types of a failed check, as the official checker names them.
const (
	ErrTurnCount = "multi_turn:force_terminated"
	ErrEmptyTurn = "multi_turn:empty_turn_model_response"
	ErrState     = "multi_turn:instance_state_mismatch"
	ErrResponse  = "multi_turn:execution_response_mismatch"
	ErrSetup     = "multi_turn:setup"
)

// Verdict is the outcome of checking one entry.
type Verdict struct {
	Valid     bool   `json:"valid"`
	ErrorType string `json:"error_type,omitempty"`
	Message   string `json:"error_message,omitempty"`
	Turn      int    `json:"turn"` // the failing turn, or -1
}

// Messages returns the user messages the policy sees at a turn: the
// entry's question, or AddedFunctionsMessage for a turn that offers
// withheld functions without a question of its own.
func (e *Entry) Messages(turn int) []Message {
	if turn < len(e.Question) && len(e.Question[turn]) > 0 {
		return e.Question[turn]
	}
	if len(e.MissedFunction[turn]) > 0 {
		return []Message{{Role: "user", Content: AddedFunctionsMessage}}
	}
	return nil
}

// Withheld returns the functions not yet offered at a turn: those whose
// missed_function turn lies after it.
func (e *Entry) Withheld(turn int) []string {
	var out []string
	for t, fs := range e.MissedFunction {
		if t > turn {
			out = append(out, fs...)
		}
	}
	sort.Strings(out)
	return out
}

// Check scores a policy's calls for one entry as the official multi-turn
// checker does. turns[i] holds the steps of turn i; each step is the list
// of call strings of one policy response. The policy's calls and the
// ground truth run on separate fresh instances. After every turn whose
// ground truth is non-empty, the turn must have calls, the public state of
// every class must equal the ground truth's, and every ground-truth result
// of the turn must occur among all the policy's results so far, counting
// duplicates. Check replays the ground truth each time; Golds.Check
// replays it once per entry.
func Check(d *Data, e Entry, turns [][][]string) Verdict {
	return check(d, e, turns, func() *goldRun {
		g := &goldRun{}
		g.results, g.states, g.err = replayGold(d, e)
		return g
	})
}

// Check is the package's Check with the ground truth of e replayed once
// for every check of it.
func (g *Golds) Check(e Entry, turns [][][]string) Verdict {
	return check(g.d, e, turns, func() *goldRun { return g.of(e) })
}

func check(d *Data, e Entry, turns [][][]string, goldOf func() *goldRun) Verdict {
	if len(turns) != len(e.GroundTruth) {
		return fail(ErrTurnCount, -1, "model produced %d turns, ground truth has %d", len(turns), len(e.GroundTruth))
	}
	model, err := NewEnv(d, e.InvolvedClasses, e.InitialConfig, e.LongContext())
	if err != nil {
		return fail(ErrSetup, -1, "%v", err)
	}
	gold := goldOf()
	if gold.err != nil {
		return fail(ErrSetup, -1, "%v", gold.err)
	}
	var all []string
	for i, gt := range e.GroundTruth {
		for _, step := range turns[i] {
			for _, c := range step {
				all = append(all, model.Execute(c))
			}
		}
		if len(gt) == 0 {
			continue
		}
		if emptyTurn(turns[i]) {
			return fail(ErrEmptyTurn, i, "model response list is empty for turn %d", i)
		}
		if c, ok := sameState(model, gold.states[i]); !ok {
			return fail(ErrState, i, "state of %s differs from the ground truth after turn %d", c, i)
		}
		if missing := missingResults(gold.results[i], all); len(missing) > 0 {
			return fail(ErrResponse, i, "turn %d: ground-truth results not found among the model's: %q", i, missing)
		}
	}
	return Verdict{Valid: true, Turn: -1}
}

func fail(kind string, turn int, format string, a ...any) Verdict {
	return Verdict{ErrorType: kind, Turn: turn, Message: fmt.Sprintf(format, a...)}
}

// emptyTurn: no step, or a single step without calls.
func emptyTurn(steps [][]string) bool {
	return len(steps) == 0 || (len(steps) == 1 && len(steps[0]) == 0)
}

// sameState compares every class's public state with the ground truth's
// (Env.State of its instances) with Python equality, ignoring the file
// system's parent links.
func sameState(model *Env, gold *Dict) (string, bool) {
	for _, k := range gold.Keys() {
		c, _ := k.(string)
		b, _ := gold.Get(c)
		var a any = model.apis[c].state()
		if c == "GorillaFileSystem" {
			a, b = StripParents(DeepCopy(a)), StripParents(DeepCopy(b))
		}
		if !Equal(a, b) {
			return c, false
		}
	}
	return "", true
}

// StripParents removes the parent link of every file-system directory in
// a state value (in place), as the official state check ignores it: the
// link repeats the tree and differs between equal trees built differently.
func StripParents(v any) any {
	d, ok := v.(*Dict)
	if !ok {
		return v
	}
	if d.Has("contents") {
		d.Delete("parent")
	}
	for _, k := range d.Keys() {
		x, _ := d.Get(k)
		d.Set(k, StripParents(x))
	}
	return d
}

// missingResults returns the wanted strings not matched, one for one, by
// the got strings.
func missingResults(want, got []string) []string {
	left := map[string]int{}
	for _, g := range got {
		left[g]++
	}
	var missing []string
	for _, w := range want {
		if left[w] > 0 {
			left[w]--
			continue
		}
		missing = append(missing, w)
	}
	return missing
}

// Accuracy is the fraction of valid verdicts; 0 for none.
func Accuracy(vs []Verdict) float64 {
	if len(vs) == 0 {
		return 0
	}
	n := 0
	for _, v := range vs {
		if v.Valid {
			n++
		}
	}
	return float64(n) / float64(len(vs))
}

// GroundTruthTurns returns the entry's ground truth as a policy output:
// one step per non-empty turn.
func (e *Entry) GroundTruthTurns() [][][]string {
	out := make([][][]string, len(e.GroundTruth))
	for i, gt := range e.GroundTruth {
		if len(gt) > 0 {
			out[i] = [][]string{append([]string(nil), gt...)}
		}
	}
	return out
}
