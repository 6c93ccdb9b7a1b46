package trainer

import (
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/arith"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// TestEvalGroups: a family that names task groups gets its evaluation
// broken down by group, recorded as eval/<task>/<metric>/<group>; one
// that names none gets no breakdown.
func TestEvalGroups(t *testing.T) {
	f := format.DefaultFormat()
	set, err := arith.MultiStep{}.Open(arith.MultiStep{}.DefaultConfig(), f)
	if err != nil {
		t.Fatal(err)
	}
	// Tasks 0, 1, 2 have 1, 2, 3 steps. Two samples each: the one-step
	// task is solved twice with one call each, the three-step task once
	// with three calls, the two-step task never and without calls.
	ok := envs.Result{Status: envs.StatusOK, Output: "1\n"}
	tasks := set.Heldout()[:3]
	var trajs []*rollout.Trajectory
	add := func(task envs.Task, answer string, calls int) {
		tr := &rollout.Trajectory{Task: task, Response: format.Block(f.Answer, answer)}
		for range calls {
			tr.Calls = append(tr.Calls, rollout.Call{Result: ok})
		}
		trajs = append(trajs, tr)
	}
	add(tasks[0], tasks[0].Answer, 1)
	add(tasks[0], tasks[0].Answer, 1)
	add(tasks[1], "-1", 0)
	add(tasks[1], "-1", 0)
	add(tasks[2], tasks[2].Answer, 3)
	add(tasks[2], "-1", 3)

	cfg := DefaultConfig()
	cfg.Task.Name = arith.MultiStepName
	r := &Run{Cfg: cfg, Tasks: set}
	res := r.score(trajs, 2)
	want := map[string][2]float64{"steps=1": {1, 1}, "steps=2": {0, 0}, "steps=3": {0.5, 3}}
	if len(res.Groups) != len(want) {
		t.Fatalf("groups %v, want %v", res.Groups, want)
	}
	for name, w := range want {
		g := res.Groups[name]
		if g.Accuracy != w[0] || g.ToolCalls != w[1] || g.N != 2 {
			t.Errorf("%s: accuracy %v, tool calls %v, n %d; want %v", name, g.Accuracy, g.ToolCalls, g.N, w)
		}
	}
	m := Metrics{}
	r.putEval(m, res)
	if v, ok := m["eval/multistep/tool_calls/steps=3"]; !ok || v != 3 {
		t.Errorf("eval/multistep/tool_calls/steps=3 = %v, %v; metrics %v", v, ok, m)
	}
	if v, ok := m["eval/multistep/pass@1/steps=1"]; !ok || v != 1 {
		t.Errorf("eval/multistep/pass@1/steps=1 = %v, %v", v, ok)
	}

	plain := &Run{Cfg: cfg, Tasks: noGroupSet{set}}
	if res := plain.score(trajs, 2); res.Groups != nil {
		t.Errorf("a family without groups has groups %v", res.Groups)
	}
}

// noGroupSet hides the TaskGroup method of the set it wraps.
type noGroupSet struct{ family.Set }
