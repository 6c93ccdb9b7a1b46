package evalbench

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// fcFormat is the function-calling format of the paper.
var fcFormat = format.Format{Think: "reasoning", Code: "tool", Output: "tool_result", Answer: "answer"}

// conversation is a rollout that makes the given calls, one tool block per
// turn, in a conversation of turns turns.
func conversation(calls [][]string, turns int) Rollout {
	t := &rollout.Trajectory{Turns: turns}
	for k, cs := range calls {
		if len(cs) > 0 {
			t.Calls = append(t.Calls, rollout.Call{Input: "[" + strings.Join(cs, ", ") + "]", Turn: k})
		}
	}
	return Rollout{Traj: t, Tokens: 10}
}

// TestBFCLScore: the official checker decides correctness: ground-truth
// conversations pass, one with its last turn dropped fails, and the
// reward components are recorded per sample and averaged.
func TestBFCLScore(t *testing.T) {
	for _, r := range roots {
		t.Run(r.name, func(t *testing.T) { testBFCLScore(t, r.root(t, "bfcl_v3")) })
	}
}

func testBFCLScore(t *testing.T, root string) {
	b, err := Open(root, "bfcl_v3_base", func(string) any { return &bfcl.Config{Docs: bfcl.DocsSignatures} }, fcFormat)
	if err != nil {
		t.Fatal(err)
	}
	d, err := bfcl.Load(filepath.Join(root, "bfcl_v3"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := d.Entries("base")
	if err != nil {
		t.Fatal(err)
	}
	tasks := b.Set.Heldout()[:3]
	var rolls []Rollout
	for i := range tasks {
		gt := entries[i].GroundTruth
		if i == 1 {
			gt = append(append([][]string(nil), gt[:len(gt)-1]...), nil)
		}
		r := conversation(gt, len(entries[i].GroundTruth))
		r.Traj.Task = tasks[i]
		rolls = append(rolls, r)
	}
	samples, sum := b.Scorer.Score(tasks, rolls, 1)
	if want := []bool{true, false, true}; samples[0].Correct != want[0] || samples[1].Correct != want[1] || samples[2].Correct != want[2] {
		t.Fatalf("correct %v %v %v, want %v", samples[0].Correct, samples[1].Correct, samples[2].Correct, want)
	}
	if v, _ := samples[1].Verdict.(*bfcl.Verdict); v == nil || v.ErrorType != bfcl.ErrEmptyTurn {
		t.Errorf("dropped turn verdict %+v, want %s", v, bfcl.ErrEmptyTurn)
	}
	if math.Abs(sum.Pass1-2.0/3) > 1e-12 || sum.Problems != 3 {
		t.Errorf("pass@1 %v over %d problems, want 2/3 over 3", sum.Pass1, sum.Problems)
	}
	if samples[0].Rewards["fc_function"] != 0.5 || samples[0].Rewards["fc_state"] != 0.5 {
		t.Errorf("ground-truth rewards %v, want full fc_function and fc_state", samples[0].Rewards)
	}
	if sum.Rewards["fc_function"] >= 0.5 || sum.Rewards["fc_function"] <= 0.3 {
		t.Errorf("mean fc_function %v, want between 0.3 and 0.5 (one conversation misses a turn)", sum.Rewards["fc_function"])
	}
}

func TestBFCLOverall(t *testing.T) {
	sums := []Summary{
		{Bench: "math500", Pass1: 0.9},
		{Bench: "bfcl_v3_base", Pass1: 0.5, PassK: 0.5, Problems: 200, ToolCalls: 2, Rewards: map[string]float64{"fc_state": 0.4}},
		{Bench: "bfcl_v3_miss_func", Pass1: 0.1, PassK: 0.2, Problems: 200, ToolCalls: 4, Rewards: map[string]float64{"fc_state": 0.2}},
	}
	all := Overall(sums)
	ok := len(all) == 1
	var o Summary
	if ok {
		o = all[0]
	}
	if !ok || math.Abs(o.Pass1-0.3) > 1e-12 || math.Abs(o.PassK-0.35) > 1e-12 || o.Problems != 400 || o.Bench != bfcl.Overall ||
		o.ToolCalls != 3 || math.Abs(o.Rewards["fc_state"]-0.3) > 1e-12 {
		t.Errorf("overall %+v, want pass@1 0.3 pass@k 0.35 over 400, 3 calls, fc_state 0.3", o)
	}
	if len(Overall(sums[:2])) != 0 {
		t.Error("an overall score of a single BFCL category")
	}
}

func TestBFCLCategory(t *testing.T) {
	for name, want := range map[string]string{"bfcl_v3_base": "base", "bfcl_v3_long_context": "long_context", "bfcl_v3_hard": "", "math500": ""} {
		if got, ok := bfcl.BenchmarkCategory(name); got != want || ok != (want != "") {
			t.Errorf("BFCLCategory(%q) = %q, %v", name, got, ok)
		}
	}
}
