package arith

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// echoTool answers every call with a fixed output, as a sandbox would
// print it.
type echoTool struct{ out string }

func (e echoTool) Call(context.Context, string) envs.Result {
	return envs.Result{Status: envs.StatusOK, Output: e.out}
}

// TestDemonstrations: a worked solution states the arithmetic as its
// plan, then either answers directly or runs the reference code and
// answers with the tool's real output, which is masked.
func TestDemonstrations(t *testing.T) {
	f := format.DefaultFormat()
	task := Problem{Mul, 4821, 37, 0, 1}.Task()
	cases := []struct {
		name    string
		useTool bool
		want    []rollout.Segment
	}{
		{"direct", false, []rollout.Segment{{Text: "<think>4821 * 37</think><answer>178377</answer>"}}},
		{"tool", true, []rollout.Segment{
			{Text: "<think>4821 * 37</think><code>fmt.Println(4821 * 37)</code>"},
			{Text: "<output>178377\n</output>\n", Tool: true},
			{Text: "<answer>178377</answer>"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			demos, err := Demonstrations(context.Background(), f, []envs.Task{task}, []bool{c.useTool}, echoTool{"178377\n"})
			if err != nil {
				t.Fatal(err)
			}
			if got := demos[0].Segments; len(got) != len(c.want) {
				t.Fatalf("segments %+v, want %+v", got, c.want)
			}
			for i, s := range demos[0].Segments {
				if s != c.want[i] {
					t.Errorf("segment %d = %+v, want %+v", i, s, c.want[i])
				}
			}
		})
	}
	if _, err := Demonstrations(context.Background(), f, []envs.Task{{ID: "other-1"}}, []bool{false}, nil); err == nil || !strings.Contains(err.Error(), "no reference solution") {
		t.Errorf("a foreign task: %v", err)
	}
}

// TestFamilyJudge: the family decides correctness by the final answer.
func TestFamilyJudge(t *testing.T) {
	set, err := Family{}.Open(Family{}.DefaultConfig(), format.DefaultFormat())
	if err != nil {
		t.Fatal(err)
	}
	task := set.Heldout()[0]
	for _, c := range []struct {
		resp string
		want bool
	}{{"<answer>" + task.Answer + "</answer>", true}, {"<answer>-1</answer>", false}} {
		if v := set.Judge(&rollout.Trajectory{Task: task, Response: c.resp}); v.Correct != c.want {
			t.Errorf("%q: verdict %+v, want correct %v", c.resp, v, c.want)
		}
	}
	if set.TaskSeed() != DefaultConfig().TrainSeed {
		t.Errorf("task seed %d, want the train seed", set.TaskSeed())
	}
}

// TestDemonstrationsReport: the library's writer reports each written
// demonstration, in order, out of the whole count.
func TestDemonstrationsReport(t *testing.T) {
	tasks := []envs.Task{Problem{Mul, 4821, 37, 0, 1}.Task(), Problem{Mul, 4822, 37, 0, 1}.Task(), Problem{Mul, 4823, 37, 0, 1}.Task()}
	var got [][2]int
	report := func(done, total int) { got = append(got, [2]int{done, total}) }
	if _, err := oneOp.demonstrations(context.Background(), format.DefaultFormat(), tasks, make([]bool, 3), nil, goCode, report); err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{1, 3}, {2, 3}, {3, 3}}; !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
}
