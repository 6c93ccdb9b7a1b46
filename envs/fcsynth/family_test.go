package fcsynth

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

var fcFormat = format.Format{Think: "reasoning", Code: "tool", Output: "tool_result", Answer: "answer"}

// played is a trajectory that makes the given calls, one tool block per
// turn, over the conversation's turns.
func played(id string, turns [][]string) *rollout.Trajectory {
	tr := &rollout.Trajectory{Task: envs.Task{ID: id}, Turns: len(turns)}
	for k, calls := range turns {
		tr.Calls = append(tr.Calls, rollout.Call{Input: "[" + strings.Join(calls, ", ") + "]", Turn: k})
	}
	return tr
}

// wrongArg returns call with its last argument changed: a number plus
// one, a string with a letter added.
func wrongArg(t *testing.T, call string) string {
	t.Helper()
	c, err := bfcl.ParseCall(call)
	if err != nil || len(c.Kwargs) == 0 {
		t.Fatalf("%s: %v (no argument to change)", call, err)
	}
	kw := &c.Kwargs[len(c.Kwargs)-1]
	switch v := kw.Value.(type) {
	case int64:
		kw.Value = v + 1
	case float64:
		kw.Value = v + 1
	case string:
		kw.Value = v + "x"
	default:
		t.Fatalf("%s: argument %s of type %T", call, kw.Name, v)
	}
	return c.String()
}

// fcParts builds the function-calling rewards from what the set
// supplies, as the trainer does.
func fcParts(t *testing.T, s *Set) (state, function reward.Func) {
	t.Helper()
	env := reward.Env{Format: fcFormat, Supplies: s.Supplies(), Components: Family{}.Rewards()}
	var fs [2]reward.Func
	for i, name := range []string{"fc_state", "fc_function"} {
		var err error
		if fs[i], err = reward.Lookup(name, env); err != nil {
			t.Fatal(err)
		}
	}
	return fs[0], fs[1]
}

// TestGoldAndWrongArgument: replaying every conversation's ground truth
// passes the official checker and earns full fc_function and fc_state;
// changing one argument of the last turn fails the checker and loses
// fc_function credit.
func TestGoldAndWrongArgument(t *testing.T) {
	s := openFixture(t, testConfig())
	state, function := fcParts(t, s)
	for _, task := range append(s.Heldout(), s.trainTasks[:100]...) {
		e, _ := s.Entry(task.ID)
		gold := played(e.ID, e.GroundTruth)
		gold.Task = task
		if v := s.Judge(gold); !v.Correct {
			t.Fatalf("%s: ground truth fails the checker: %s", e.ID, v.Reason)
		}
		if f, ok := function(gold, task); !ok || f != 0.5 {
			t.Errorf("%s: gold fc_function %v %v, want 0.5", e.ID, f, ok)
		}
		if st, ok := state(gold, task); ok && st != 0.5 {
			t.Errorf("%s: gold fc_state %v, want 0.5", e.ID, st)
		}
		turns := append([][]string(nil), e.GroundTruth...)
		last := len(turns) - 1
		turns[last] = []string{wrongArg(t, turns[last][0])}
		wrong := played(e.ID, turns)
		wrong.Task = task
		if v := s.Judge(wrong); v.Correct {
			t.Errorf("%s: %s passes the checker in place of %s", e.ID, turns[last][0], e.GroundTruth[last][0])
		}
		if f, _ := function(wrong, task); f >= 0.5 {
			t.Errorf("%s: wrong argument keeps fc_function %v", e.ID, f)
		}
	}
}

// TestJudgeUnknownAndSilent: a trajectory of no conversation of the set,
// and one that makes no call, fail with the checker's error types.
func TestJudgeUnknownAndSilent(t *testing.T) {
	s := openFixture(t, testConfig())
	cases := []struct {
		name string
		tr   *rollout.Trajectory
		kind string
	}{
		{"unknown", &rollout.Trajectory{Task: envs.Task{ID: "nope"}, Turns: 1}, bfcl.ErrSetup},
		{"no call", &rollout.Trajectory{Task: s.Heldout()[0], Turns: len(s.Heldout()[0].Turns) + 1}, bfcl.ErrEmptyTurn},
	}
	for _, c := range cases {
		v := s.Judge(c.tr)
		if v.Correct || v.Detail.(*bfcl.Verdict).ErrorType != c.kind {
			t.Errorf("%s: %+v, want an incorrect %s verdict", c.name, v, c.kind)
		}
	}
}

// TestDemonstrationsReal: with tool_fraction 1 every turn calls, and each
// result is what the conversation's fresh instances return for the calls
// so far; with 0 no turn calls. The same stream gives the same library.
func TestDemonstrationsReal(t *testing.T) {
	s := openFixture(t, testConfig())
	req := func(frac float64, seed int64) family.DemoRequest {
		return family.DemoRequest{Format: fcFormat, Size: 30, ToolFraction: frac,
			Sample:   func(n int) []envs.Task { return s.Train().Sample(rand.New(rand.NewSource(seed)), n) },
			RNG:      rand.New(rand.NewSource(seed)),
			UserTurn: func(m string) string { return "\n" + m + "\n" }, EOS: "<eos>"}
	}
	full := req(1, 1)
	var reports []int
	full.Progress = func(done, total int) {
		if total != 30 {
			t.Errorf("progress total %d, want 30", total)
		}
		reports = append(reports, done)
	}
	demos, err := s.Demonstrations(context.Background(), full)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 30 || reports[0] != 1 || reports[29] != 30 {
		t.Errorf("progress reports %v, want 1..30", reports)
	}
	for _, d := range demos {
		e, _ := s.Entry(d.Task.ID)
		env, err := bfcl.NewEnv(s.data, e.InvolvedClasses, e.InitialConfig, false)
		if err != nil {
			t.Fatal(err)
		}
		var results []string
		for _, seg := range d.Segments {
			if seg.Tool && strings.HasPrefix(seg.Text, "<tool_result>") {
				results = append(results, seg.Text)
			}
		}
		if len(results) != len(e.GroundTruth) || !d.UsesTool {
			t.Fatalf("%s: %d results for %d turns", e.ID, len(results), len(e.GroundTruth))
		}
		for k, turn := range e.GroundTruth {
			want := format.ResultBlock(fcFormat, env.Execute(turn[0]))
			if results[k] != want {
				t.Errorf("%s turn %d: result %q, the instances return %q", e.ID, k, results[k], want)
			}
		}
	}
	none, _ := s.Demonstrations(context.Background(), req(0, 1))
	for _, d := range none {
		if d.UsesTool || strings.Contains(d.Response(), "<tool>") {
			t.Errorf("%s: tool_fraction 0 wrote a call: %q", d.Task.ID, d.Response())
		}
	}
	a, _ := s.Demonstrations(context.Background(), req(0.5, 2))
	b, _ := s.Demonstrations(context.Background(), req(0.5, 2))
	for i := range a {
		if a[i].Response() != b[i].Response() {
			t.Fatalf("demonstration %d differs between two runs of one stream", i)
		}
	}
}

// TestValidate: each bad key is named with its fix.
func TestValidate(t *testing.T) {
	cases := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Data = "" }, "task.fcsynth.data"},
		{func(c *Config) { c.Train = 0 }, "task.fcsynth.train"},
		{func(c *Config) { c.HeldoutSeed = c.TrainSeed }, "task.fcsynth.heldout_seed"},
		{func(c *Config) { c.MaxTurns = 4 }, "task.fcsynth.max_turns"},
		{func(c *Config) { c.Functions = 1 }, "task.fcsynth.functions"},
		{func(c *Config) { c.Docs = "yaml" }, "task.fcsynth.docs"},
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for i, c := range cases {
		cfg := DefaultConfig()
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "fcsynth: ") {
			t.Errorf("case %d: %v, want an error naming %s", i, err, c.want)
		}
	}
	if _, err := (Family{}).Open(&Config{Data: "no/such/folder", Train: 1, Heldout: 1, TrainSeed: 1, HeldoutSeed: 2, MaxTurns: 1, Functions: 2}, fcFormat); err == nil ||
		!strings.Contains(err.Error(), "fetch-data") {
		t.Errorf("missing data: %v, want an error saying how to fetch it", err)
	}
}
