package bfcl

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// fcFormat is the function-calling format of the paper.
var fcFormat = format.Format{Think: "reasoning", Code: "tool", Output: "tool_result", Answer: "answer"}

// TestSetJudgeTrajectory: a trajectory that makes each turn's
// ground-truth calls in that turn passes the official checker; the same
// calls with the last turn's dropped, or all in the first turn, fail it.
func TestSetJudgeTrajectory(t *testing.T) {
	set, err := Family{}.OpenBenchmark("../../testdata", "bfcl_v3_base", &Config{Docs: DocsJSON}, fcFormat)
	if err != nil {
		t.Fatal(err)
	}
	e := set.(*Set).byID["multi_turn_base_0"]
	build := func(turns [][]string) *rollout.Trajectory {
		tr := &rollout.Trajectory{Task: envs.Task{ID: e.ID}, Turns: len(e.GroundTruth)}
		for k, calls := range turns {
			if len(calls) > 0 {
				tr.Calls = append(tr.Calls, rollout.Call{Input: "[" + strings.Join(calls, ", ") + "]", Turn: k})
			}
		}
		return tr
	}
	gold := e.GroundTruth
	dropped := append(append([][]string(nil), gold[:len(gold)-1]...), nil)
	var all []string
	for _, c := range gold {
		all = append(all, c...)
	}
	early := make([][]string, len(gold))
	early[0] = all
	cases := []struct {
		name  string
		traj  *rollout.Trajectory
		valid bool
		kind  string
	}{
		{"ground truth", build(gold), true, ""},
		{"last turn dropped", build(dropped), false, ErrEmptyTurn},
		{"all calls in turn 0", build(early), false, ErrState},
		{"conversation cut short", func() *rollout.Trajectory { tr := build(gold); tr.Turns = 1; return tr }(), false, ErrTurnCount},
		{"unknown entry", &rollout.Trajectory{Task: envs.Task{ID: "nope"}, Turns: 1}, false, ErrSetup},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := set.Judge(c.traj)
			d := v.Detail.(*Verdict)
			if v.Correct != c.valid || d.Valid != c.valid || d.ErrorType != c.kind {
				t.Errorf("verdict %+v (%+v), want valid %v error %q", v, d, c.valid, c.kind)
			}
		})
	}
}

// TestFamilyConfig: the task.bfcl section's defaults validate, and each
// bad key is named.
func TestFamilyConfig(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"defaults", func(*Config) {}, ""},
		{"no data", func(c *Config) { c.Data = "" }, "task.bfcl.data"},
		{"bad category", func(c *Config) { c.Category = "hard" }, "miss_func"},
		{"empty split", func(c *Config) { c.Train = 0 }, "task.bfcl.train"},
		{"bad docs", func(c *Config) { c.Docs = "html" }, "task.bfcl.docs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Family{}.DefaultConfig().(*Config)
			tc.edit(c)
			err := Family{}.Validate(c)
			if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}
