package trainer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// echoFamily is a whole task family in a few lines: "repeat N" tasks
// whose code tool echoes its input, judged by the final answer. Adding
// it takes this type and one family.Register call; the trainer knows
// nothing else of it.
type echoFamily struct{}

// echoConfig is the family's section, task.echo.
type echoConfig struct {
	Tasks int `yaml:"tasks"`
}

func (echoFamily) Name() string        { return "echo" }
func (echoFamily) DefaultConfig() any  { return &echoConfig{Tasks: 4} }
func (echoFamily) ToolKinds() []string { return []string{"echo"} }
func (echoFamily) Rewards() []string   { return []string{"answer", "tool_success"} }
func (echoFamily) WritesDemos() bool   { return true }

func (echoFamily) Validate(section any) error {
	if n := section.(*echoConfig).Tasks; n < 1 {
		return fmt.Errorf("echo: task.echo.tasks must be >= 1, got %d", n)
	}
	return nil
}

func (echoFamily) Open(section any, f format.Format) (family.Set, error) {
	var tasks envs.List
	for i := range section.(*echoConfig).Tasks {
		tasks = append(tasks, envs.Task{ID: fmt.Sprint("echo-", i), Prompt: fmt.Sprint("repeat ", 10+i), Answer: fmt.Sprint(10 + i)})
	}
	return &echoSet{Answers: reward.Answers{Format: f}, tasks: tasks}, nil
}

type echoSet struct {
	reward.Answers
	tasks envs.List
}

func (s *echoSet) Train() envs.Sampler  { return s.tasks }
func (s *echoSet) Heldout() []envs.Task { return s.tasks }
func (s *echoSet) TaskSeed() int64      { return 0 }
func (s *echoSet) Supplies() []any      { return nil }

func (s *echoSet) Tool(string) (envs.Tool, error) { return echoTool{}, nil }

func (s *echoSet) Demonstrations(_ context.Context, req family.DemoRequest) ([]rollout.Demo, error) {
	var out []rollout.Demo
	for _, t := range req.Sample(req.Size) {
		out = append(out, rollout.Demo{Task: t, UsesTool: true, Segments: []rollout.Segment{
			{Text: format.Block(req.Format.Think, "echo it") + format.Block(req.Format.Code, t.Answer)},
			{Text: format.ResultBlock(req.Format, t.Answer), Tool: true},
			{Text: format.Block(req.Format.Answer, t.Answer)},
		}})
	}
	return out, nil
}

// echoTool prints its input back.
type echoTool struct{}

func (echoTool) Call(_ context.Context, input string) envs.Result {
	return envs.Result{Status: envs.StatusOK, Output: strings.TrimSpace(input)}
}

var _ family.Family = echoFamily{}

var registerEcho sync.Once

// TestMinimalFamily: a family defined in a test trains end to end: its
// config section decodes strictly and is resolved, its tool runs the
// calls, its demonstrations warm-start the policy, its rewards score it.
func TestMinimalFamily(t *testing.T) {
	registerEcho.Do(func() { family.Register(echoFamily{}) })
	dir := t.TempDir()
	yaml := `
task: {name: echo, echo: {tasks: 3}}
tool: {kind: echo}
reward: {weights: {answer: 1, tool_success: 1}}
tokenizer_merges: 0
model: {hidden_size: 16, intermediate_size: 32, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1}
warmstart: {steps: 2, batch_size: 2, demos: 4}
grpo: {steps: 1, batch_size: 2}
rollout: {group_size: 2, max_response_tokens: 24}
eval: {every: 0}
`
	if _, err := Parse([]byte(yaml+"task: {echo: {taskz: 3}}\n"), "echo.yaml", nil); err == nil || !strings.Contains(err.Error(), `unknown key "task.echo.taskz"`) {
		t.Errorf("unknown key in the family's section: %v", err)
	}
	if _, err := Parse([]byte(yaml), "echo.yaml", []string{"task.echo.tasks=0"}); err == nil || !strings.Contains(err.Error(), "task.echo.tasks") {
		t.Errorf("invalid section: %v", err)
	}
	if _, err := Parse([]byte(yaml), "echo.yaml", []string{"reward.weights.fc_state=1"}); err == nil || !strings.Contains(err.Error(), "answer, tool_success") {
		t.Errorf("a component the family does not list: %v", err)
	}
	cfg, err := Parse([]byte(yaml), "echo.yaml", []string{"run_dir=" + dir})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Train(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Final.N != 3 || sum.Tool != "echo" {
		t.Errorf("summary %+v, want 3 held-out rollouts with the echo tool", sum)
	}
	resolved, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil || !strings.Contains(string(resolved), "echo:\n        tasks: 3") {
		t.Errorf("resolved config lacks task.echo.tasks: %v\n%s", err, resolved)
	}
}
