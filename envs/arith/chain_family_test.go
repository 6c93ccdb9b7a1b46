package arith

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// scriptTool answers the calls with fixed outputs in turn and records the
// snippets it was given.
type scriptTool struct {
	outs  []string
	calls []string
}

func (s *scriptTool) Call(_ context.Context, code string) envs.Result {
	s.calls = append(s.calls, code)
	out := s.outs[len(s.calls)-1]
	return envs.Result{Status: envs.StatusOK, Output: out}
}

// TestDemonstrations: a worked solution states the chain as its plan,
// then either answers directly or calls the tool once per step, each
// snippet starting from the value the previous call printed, with every
// result masked.
func TestChainDemonstrations(t *testing.T) {
	f := format.DefaultFormat()
	task := Chain{3, 482, 37, 64, 25, 0, 0}.Task()
	cases := []struct {
		name    string
		useTool bool
		outs    []string
		want    []rollout.Segment
	}{
		{"direct", false, nil, []rollout.Segment{{Text: "<think>482 * 37 % 64 + 25</think><answer>67</answer>"}}},
		{"tool", true, []string{"17834\n", "42\n", "67\n"}, []rollout.Segment{
			{Text: "<think>482 * 37 % 64 + 25</think><code>fmt.Println(482 * 37)</code>"},
			{Text: "<output>17834\n</output>\n", Tool: true},
			{Text: "<code>fmt.Println(17834 % 64)</code>"},
			{Text: "<output>42\n</output>\n", Tool: true},
			{Text: "<code>fmt.Println(42 + 25)</code>"},
			{Text: "<output>67\n</output>\n", Tool: true},
			{Text: "<answer>67</answer>"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool := &scriptTool{outs: c.outs}
			demos, err := ChainDemonstrations(context.Background(), f, []envs.Task{task}, []bool{c.useTool}, tool)
			if err != nil {
				t.Fatal(err)
			}
			got := demos[0].Segments
			if len(got) != len(c.want) || demos[0].UsesTool != c.useTool {
				t.Fatalf("segments %+v (uses tool %v), want %+v", got, demos[0].UsesTool, c.want)
			}
			for i, s := range got {
				if s != c.want[i] {
					t.Errorf("segment %d = %+v, want %+v", i, s, c.want[i])
				}
			}
			if len(tool.calls) != len(c.outs) {
				t.Errorf("%d tool calls, want %d", len(tool.calls), len(c.outs))
			}
		})
	}
}

// TestDemonstrationsRefuseWrongResults: a tool whose output is not the
// step's true value, or a foreign task, is an error, not a demonstration.
func TestChainDemonstrationsRefuseWrongResults(t *testing.T) {
	f := format.DefaultFormat()
	task := Chain{2, 482, 37, 64, 0, 0, 0}.Task()
	_, err := ChainDemonstrations(context.Background(), f, []envs.Task{task}, []bool{true}, &scriptTool{outs: []string{"17834\n", "41\n"}})
	if err == nil || !strings.Contains(err.Error(), "step 2") {
		t.Errorf("a wrong second result: %v", err)
	}
	_, err = ChainDemonstrations(context.Background(), f, []envs.Task{{ID: "arith-mul-1-2-t0-n0"}}, []bool{false}, nil)
	if err == nil || !strings.Contains(err.Error(), "no reference solution") {
		t.Errorf("a foreign task: %v", err)
	}
}

// TestDemonstrationsRunInSandbox: with the real code tool, every step of
// every tool-using demonstration prints its true value, and the last one
// is the gold answer.
func TestChainDemonstrationsRunInSandbox(t *testing.T) {
	sb, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	_, heldout, err := NewChainSplit(DefaultChainConfig())
	if err != nil {
		t.Fatal(err)
	}
	tasks := heldout[:30]
	useTool := make([]bool, len(tasks))
	for i := range useTool {
		useTool[i] = true
	}
	demos, err := ChainDemonstrations(context.Background(), format.DefaultFormat(), tasks, useTool, sb)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range demos {
		n, _ := Steps(d.Task)
		var results []string
		for _, s := range d.Segments {
			if s.Tool {
				results = append(results, s.Text)
			}
		}
		last := d.Segments[len(d.Segments)-1].Text
		if len(results) != n || last != fmt.Sprintf("<answer>%s</answer>", tasks[i].Answer) ||
			results[n-1] != fmt.Sprintf("<output>%s\n</output>\n", tasks[i].Answer) {
			t.Errorf("%s: %d results %q, last segment %q", d.Task.ID, len(results), results, last)
		}
	}
}

// TestSetJudgeAndGroups: the family decides correctness by the final
// answer and names each task's step-count group.
func TestChainSetJudgeAndGroups(t *testing.T) {
	set, err := MultiStep{}.Open(MultiStep{}.DefaultConfig(), format.DefaultFormat())
	if err != nil {
		t.Fatal(err)
	}
	task := set.Heldout()[2]
	for _, c := range []struct {
		resp string
		want bool
	}{{"<answer>" + task.Answer + "</answer>", true}, {"<answer>-1</answer>", false}, {"", false}} {
		if v := set.Judge(&rollout.Trajectory{Task: task, Response: c.resp}); v.Correct != c.want {
			t.Errorf("%q: verdict %+v, want correct %v", c.resp, v, c.want)
		}
	}
	g := set.(*Set)
	for i, want := range []string{"steps=1", "steps=2", "steps=3", "steps=1"} {
		if got := g.TaskGroup(set.Heldout()[i]); got != want {
			t.Errorf("held-out task %d: group %q, want %q", i, got, want)
		}
	}
	if got := g.TaskGroup(envs.Task{ID: "other"}); got != "" {
		t.Errorf("foreign task: group %q, want none", got)
	}
	if set.TaskSeed() != DefaultChainConfig().TrainSeed {
		t.Errorf("task seed %d, want the train seed", set.TaskSeed())
	}
	bad := DefaultChainConfig()
	bad.Steps = []int{5}
	if err := (MultiStep{}).Validate(&bad); err == nil || !strings.Contains(err.Error(), "task.multistep") {
		t.Errorf("Validate of a bad section: %v", err)
	}
}

// TestDemonstrationsReport: the library's writer reports each written
// demonstration, in order, out of the whole count.
func TestChainDemonstrationsReport(t *testing.T) {
	tasks := []envs.Task{Chain{3, 482, 37, 64, 25, 0, 0}.Task(), Chain{3, 482, 37, 64, 25, 0, 1}.Task()}
	var got [][2]int
	report := func(done, total int) { got = append(got, [2]int{done, total}) }
	if _, err := chained.demonstrations(context.Background(), format.DefaultFormat(), tasks, make([]bool, 2), nil, goCode, report); err != nil {
		t.Fatal(err)
	}
	if want := [][2]int{{1, 2}, {2, 2}}; !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
}
