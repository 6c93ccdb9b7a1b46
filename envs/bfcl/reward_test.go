package bfcl

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// bfclDir holds hand-made entries in the BFCL v3 format (testdata at the
// module root).
var bfclDir = filepath.Join("..", "..", "testdata", "bfcl_v3")

var (
	fcOnce sync.Once
	fcBase *FC
	fcErr  error
)

// baseFC loads the base category once for the whole package.
func baseFC(t *testing.T) *FC {
	t.Helper()
	fcOnce.Do(func() {
		var d *Data
		if d, fcErr = Load(bfclDir); fcErr == nil {
			fcBase, fcErr = NewFC(d, "base", fcFormat)
		}
	})
	if fcErr != nil {
		t.Fatal(fcErr)
	}
	return fcBase
}

// goldCalls flattens the ground truth of an entry.
func goldCalls(t *testing.T, fc *FC, id string) []string {
	t.Helper()
	e, ok := fc.entries[id]
	if !ok {
		t.Fatalf("no entry %s", id)
	}
	var out []string
	for _, turn := range e.GroundTruth {
		out = append(out, turn...)
	}
	return out
}

// fcTrajectory makes one tool block per input, each after its reasoning,
// with the results the engine would have written.
func fcTrajectory(inputs ...string) *rollout.Trajectory {
	var b strings.Builder
	t := &rollout.Trajectory{}
	for _, in := range inputs {
		fmt.Fprintf(&b, "<reasoning>next</reasoning>\n<tool>%s</tool>\n<tool_result>ok</tool_result>\n", in)
		t.Calls = append(t.Calls, rollout.Call{Input: in})
	}
	t.Response = b.String()
	return t
}

func replace(calls []string, i int, with ...string) []string {
	out := append([]string(nil), calls[:i]...)
	out = append(out, with...)
	return append(out, calls[i+1:]...)
}

func TestFCStateAndFunction(t *testing.T) {
	fc := baseFC(t)
	const id = "multi_turn_base_0"
	gold := goldCalls(t, fc, id)
	n := float64(len(gold))
	at := func(prefix string) int {
		for i, c := range gold {
			if strings.HasPrefix(c, prefix) {
				return i
			}
		}
		t.Fatalf("no call %s in the ground truth of %s", prefix, id)
		return -1
	}
	mvNotes, mkdir, sort := at("mv(source='notes.txt'"), at("mkdir("), at("sort(")
	e := fc.entries[id]
	var perTurn []string
	for _, turn := range e.GroundTruth {
		perTurn = append(perTurn, "["+strings.Join(turn, ", ")+"]")
	}
	const lower = -1.0 // state strictly below 0.5, above 0
	cases := []struct {
		name            string
		calls           []string
		state, function float64
	}{
		{"ground truth, one call per block", gold, 0.5, 0.5},
		{"ground truth, one block per turn", perTurn, 0.5, 0.5},
		{"ground truth plus a read-only extra call", append(append([]string(nil), gold...), "pwd()"), 0.5, 0.5},
		{"last call dropped (read-only diff)", gold[:len(gold)-1], 0.5, 0.5 * (n - 1) / n},
		{"state-changing mv dropped", replace(gold, mvNotes), lower, 0.5 * (n - 1) / n},
		{"wrong argument to mkdir", replace(gold, mkdir, "mkdir(dir_name='tmp')"), lower, 0.5 * (n - 1) / n},
		{"positional written as keyword", replace(gold, sort, "sort(file_name='summary.txt')"), 0.5, 0.5},
		{"keyword order does not matter", replace(gold, 2, "mv(destination='drafts', source='summary.txt')"), 0.5, 0.5},
		{"JSON call syntax", replace(gold, 0, `{"name": "cd", "arguments": {"folder": "reports"}}`), 0.5, 0.5},
		{"unparsable block counts as no call", replace(gold, 0, "cd(folder='reports'"), lower, 0.5 * (n - 1) / n},
		{"first call repeated matches once", []string{gold[0], gold[0], gold[0]}, lower, 0.5 / n},
		{"no calls", nil, lower, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := fcTrajectory(c.calls...)
			task := envs.Task{ID: id}
			s, ok := fc.State()(tr, task)
			if !ok {
				t.Fatal("state does not apply")
			}
			if c.state == lower {
				if s <= 0 || s >= 0.5 {
					t.Errorf("state = %v, want in (0, 0.5)", s)
				}
			} else if math.Abs(s-c.state) > 1e-12 {
				t.Errorf("state = %v, want %v", s, c.state)
			}
			f, ok := fc.Function()(tr, task)
			if !ok || math.Abs(f-c.function) > 1e-12 {
				t.Errorf("function = %v, %v, want %v, true", f, ok, c.function)
			}
		})
	}
}

// TestFCGroundTruthAllBase replays the ground truth of every base entry as
// a trajectory: each scores the full state and function rewards. It runs
// on the fixture, and on the benchmark when it is present.
func TestFCGroundTruthAllBase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fc      func(t *testing.T) *FC
		entries int
	}{
		{"fixture", baseFC, 6},
		{"benchmark", func(t *testing.T) *FC {
			d, err := Load(datadir.Require(t, "bfcl_v3"))
			if err != nil {
				t.Fatal(err)
			}
			fc, err := NewFC(d, "base", fcFormat)
			if err != nil {
				t.Fatal(err)
			}
			return fc
		}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := tc.fc(t)
			if len(fc.entries) != tc.entries {
				t.Fatalf("%d base entries, want %d", len(fc.entries), tc.entries)
			}
			for id := range fc.entries {
				tr := fcTrajectory(goldCalls(t, fc, id)...)
				task := envs.Task{ID: id}
				f, fok := fc.Function()(tr, task)
				if !fok || f != 0.5 {
					t.Errorf("%s: function = %v, %v, want 0.5", id, f, fok)
				}
				if s, ok := fc.State()(tr, task); !ok || s != 0.5 {
					t.Errorf("%s: state = %v, %v, want 0.5, true", id, s, ok)
				}
			}
		})
	}
}

func TestFCUnknownEntry(t *testing.T) {
	fc := baseFC(t)
	tr := fcTrajectory("cd(folder='reports')")
	task := envs.Task{ID: "multi_turn_miss_func_0"}
	for name, f := range map[string]reward.Func{"state": fc.State(), "function": fc.Function()} {
		t.Run(name, func(t *testing.T) {
			if s, ok := f(tr, task); ok {
				t.Errorf("applies to an unknown entry with score %v", s)
			}
		})
	}
}

func TestFCStateConcurrent(t *testing.T) {
	fc := baseFC(t)
	const id = "multi_turn_base_1"
	gold := goldCalls(t, fc, id)
	prefix := func(i int) *rollout.Trajectory { return fcTrajectory(gold[:min(i, len(gold))]...) }
	got := make([]float64, len(gold)+2)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i], _ = fc.State()(prefix(i), envs.Task{ID: id}) })
	}
	wg.Wait()
	for i, g := range got {
		if want, _ := fc.State()(prefix(i), envs.Task{ID: id}); g != want {
			t.Errorf("prefix %d: concurrent state %v, sequential %v", i, g, want)
		}
	}
	if got[0] >= 0.5 || got[len(got)-1] != 0.5 {
		t.Errorf("states %v: want the empty trajectory below 0.5 and the full one at 0.5", got)
	}
}

func TestFormatFC(t *testing.T) {
	const (
		r  = "<reasoning>plan</reasoning>"
		c  = "<tool>ls()</tool>"
		o  = "<tool_result>{\"a\": 1}</tool_result>"
		rr = "<reasoning>again</reasoning>"
	)
	pairs := func(n int) float64 { return 0.025 * float64(n) }
	cases := []struct {
		name     string
		response string
		want     float64
	}{
		{"strict, one call", r + c + o, pairs(3) + 0.1},
		{"strict, calls and reasoning across turns", r + c + o + c + o + "Done.\nuser: next\n" + rr + c + o + rr, pairs(3) + 0.1},
		{"strict with text between blocks", "Sure. " + r + "\n" + c + "\n" + o + "\nAll done.", pairs(3) + 0.1},
		{"result text may hold tags", r + c + "<tool_result><tool>x</tool_result>", pairs(3) + 0.1},
		{"reasoning only", r, pairs(1)},
		{"no reasoning first", c + o + r, pairs(3)},
		{"tool without result", r + c + rr, pairs(2)},
		{"result without tool", r + o + c + o, pairs(3)},
		{"result before tool", r + o + c, pairs(3)},
		{"two calls then one result", r + c + c + o, pairs(3)},
		{"unclosed tool", r + "<tool>ls()" + o, pairs(2)},
		{"stray closing tag", r + "</reasoning>" + c + o, pairs(3)},
		{"tag nested in reasoning", "<reasoning>a" + c + "</reasoning>" + o, pairs(3)},
		{"empty", "", 0},
	}
	f := FormatFC(fcFormat)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := f(&rollout.Trajectory{Response: tc.response}, envs.Task{})
			if !ok || math.Abs(s-tc.want) > 1e-12 {
				t.Errorf("score = %v, %v, want %v", s, ok, tc.want)
			}
		})
	}
}

func TestFormatFCCustomTags(t *testing.T) {
	f := FormatFC(format.Format{Think: "think", Code: "call", Output: "out", Answer: "answer"})
	s, _ := f(&rollout.Trajectory{Response: "<think>a</think><call>ls()</call><out>x</out>"}, envs.Task{})
	d, _ := FormatFC(fcFormat)(&rollout.Trajectory{Response: "<think>a</think><call>ls()</call><out>x</out>"}, envs.Task{})
	if math.Abs(s-0.175) > 1e-12 || d != 0 {
		t.Errorf("custom tags score %v, default tags score %v; want 0.175 and 0", s, d)
	}
}

func ExampleNewFC_composite() {
	d, err := Load(bfclDir)
	if err != nil {
		fmt.Println(err)
		return
	}
	env := reward.Env{Format: fcFormat, Supplies: []any{Scope{Data: d, Category: "base"}},
		Components: []string{"fc_format", "fc_function", "fc_state"}}
	fc, err := reward.NewComposite(map[string]float64{"fc_format": 1, "fc_function": 1, "fc_state": 1}, env)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The first turn of the fixture's multi_turn_base_0 only, in one tool
	// block.
	t := &rollout.Trajectory{
		Response: "<reasoning>Make drafts, then move the summary.</reasoning>" +
			"<tool>[cd(folder='reports'), mkdir(dir_name='drafts'), mv(source='summary.txt', destination='drafts')]</tool>" +
			"<tool_result>...</tool_result>Done.",
		Calls: []rollout.Call{{Input: "[cd(folder='reports'), mkdir(dir_name='drafts'), mv(source='summary.txt', destination='drafts')]"}},
	}
	total, parts := fc.Score(t, envs.Task{ID: "multi_turn_base_0"})
	fmt.Printf("format %.3f function %.3f state %.3f total %.3f\n",
		parts["fc_format"], parts["fc_function"], parts["fc_state"], total)
	// Output:
	// format 0.175 function 0.150 state 0.450 total 0.775
}

// TestFCComposite: the function-calling components come from the one
// registry, built from the family's scope; other names, missing scopes
// and bad weights are errors.
func TestFCComposite(t *testing.T) {
	d, err := Load(bfclDir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"fc_format", "fc_function", "fc_state"}
	env := reward.Env{Format: fcFormat, Supplies: []any{Scope{Data: d, Category: "base"}}, Components: names}
	c, err := reward.NewComposite(map[string]float64{"fc_state": 2, "fc_format": 0}, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) != 2 || c[0].Name != "fc_format" || c[1].Name != "fc_state" || c[1].Weight != 2 {
		t.Errorf("components %+v, want fc_format (0) and fc_state (2)", c)
	}
	cases := []struct {
		name    string
		weights map[string]float64
		env     reward.Env
		want    string
	}{
		{"none", nil, env, "no components"},
		{"math component", map[string]float64{"answer": 1}, env, "fc_function, fc_state"},
		{"nan", map[string]float64{"fc_state": math.NaN()}, env, "finite"},
		{"no scope", map[string]float64{"fc_state": 1}, reward.Env{Format: fcFormat}, "Scope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := reward.NewComposite(tc.weights, tc.env); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("weights %v: error %v, want one containing %q", tc.weights, err, tc.want)
			}
		})
	}
}
