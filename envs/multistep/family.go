package multistep

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// FamilyName is the task.name of the multi-step word problems.
const FamilyName = "multistep"

// Family is the multistep task family: the word problems of NewSplit,
// solved with Go code in the sandbox, judged by their final answer.
// Register it with family.Register.
type Family struct{ family.SandboxOnly }

var (
	_ family.Family = Family{}
	_ family.Set    = (*Set)(nil)
)

// Name implements family.Family.
func (Family) Name() string { return FamilyName }

// DefaultConfig implements family.Family: a *Config.
func (Family) DefaultConfig() any { c := DefaultConfig(); return &c }

// Validate implements family.Family.
func (Family) Validate(section any) error {
	if err := section.(*Config).Validate(); err != nil {
		return fmt.Errorf("multistep: task.multistep: %w", err)
	}
	return nil
}

// Rewards implements family.Family: the math components.
func (Family) Rewards() []string { return reward.AnswerRewards() }

// WritesDemos implements family.Family.
func (Family) WritesDemos() bool { return true }

// Open implements family.Family with NewSplit.
func (Family) Open(section any, f format.Format) (family.Set, error) {
	c := *section.(*Config)
	train, heldout, err := NewSplit(c)
	if err != nil {
		return nil, fmt.Errorf("multistep: task.multistep: %w", err)
	}
	return &Set{Answers: reward.Answers{Format: f}, Generated: family.Generated{Family: FamilyName, Sampler: train, Tasks: heldout, Seed: c.TrainSeed}}, nil
}

// Set is the multistep family opened on its config.
type Set struct {
	reward.Answers
	family.Generated
}

// TaskGroup names the group of a task in evaluation breakdowns:
// "steps=N", or "" for a task this package did not write.
func (*Set) TaskGroup(t envs.Task) string {
	n, ok := Steps(t)
	if !ok {
		return ""
	}
	return "steps=" + strconv.Itoa(n)
}

// Demonstrations implements family.Set: req.Size tasks drawn with
// req.Sample, each calling the tool with probability req.ToolFraction (one
// req.RNG draw per task, in order), written by Demonstrations with a
// working sandbox.
func (s *Set) Demonstrations(ctx context.Context, req family.DemoRequest) ([]rollout.Demo, error) {
	tasks := req.Sample(req.Size)
	useTool := make([]bool, len(tasks))
	for i := range useTool {
		useTool[i] = req.RNG.Float64() < req.ToolFraction
	}
	sb, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		return nil, fmt.Errorf("multistep: demonstrations: %w", err)
	}
	defer sb.Close()
	return demonstrations(ctx, req.Format, tasks, useTool, sb, req.Progress)
}

// Demonstrations writes one worked solution per task, in f's style
// (rollout.Program). Each first states its plan, the whole chain
// (Problem.Expression), as reasoning; where useTool[i] it then calls the
// tool once per step, each snippet starting from the value the previous
// call printed (the tool keeps no state between calls), and answers with
// the last output; otherwise it answers directly. A tool result that is
// not the step's true value is an error: the library holds only correct
// solutions.
func Demonstrations(ctx context.Context, f format.Format, tasks []envs.Task, useTool []bool, tool envs.Tool) ([]rollout.Demo, error) {
	return demonstrations(ctx, f, tasks, useTool, tool, nil)
}

// demonstrations is Demonstrations reporting each written demonstration
// to report (family.DemoRequest.Report; nil reports nothing).
func demonstrations(ctx context.Context, f format.Format, tasks []envs.Task, useTool []bool, tool envs.Tool, report func(done, total int)) ([]rollout.Demo, error) {
	return family.WriteDemos(len(tasks), report, func(i int) (rollout.Demo, error) {
		return demonstration(ctx, f, tasks[i], useTool[i], tool)
	})
}

// demonstration writes the worked solution of t (see Demonstrations).
func demonstration(ctx context.Context, f format.Format, t envs.Task, useTool bool, tool envs.Tool) (rollout.Demo, error) {
	p, ok := parseID(t.ID)
	if !ok {
		return rollout.Demo{}, fmt.Errorf("multistep: demonstrations: task %s has no reference solution", t.ID)
	}
	prog := rollout.NewProgram(f).Think(p.Expression())
	if !useTool {
		return rollout.Demo{Task: t, Segments: prog.Answer(t.Answer).Segments()}, nil
	}
	if err := toolSolution(ctx, prog, p, tool); err != nil {
		return rollout.Demo{}, fmt.Errorf("multistep: demonstrations: %s: %w", t.ID, err)
	}
	return rollout.Demo{Task: t, UsesTool: true, Segments: prog.Segments()}, nil
}

// toolSolution runs p's steps one call at a time, adding each snippet
// and its result to prog, then the last value as the answer.
func toolSolution(ctx context.Context, prog *rollout.Program, p Problem, tool envs.Tool) error {
	want := p.Values()
	v := p.A
	for i := range p.Steps {
		code := p.StepCode(i, v)
		res := tool.Call(ctx, code)
		got := strings.TrimSpace(res.Output)
		if res.Status != envs.StatusOK || got != strconv.Itoa(want[i]) {
			return fmt.Errorf("step %d code %q gave %s %q, want %d", i+1, code, res.Status, res.Output, want[i])
		}
		prog.Call(code, res.Output)
		v = want[i]
	}
	prog.Answer(strconv.Itoa(v))
	return nil
}
