package arith

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// The task.name of the two families: one operation per problem, and
// chains of one to MaxSteps steps.
const (
	FamilyName    = "arith"
	MultiStepName = "multistep"
)

// Family is the arith task family: the one-operation word problems of
// NewSplit, configured by a Config. Register it with family.Register.
type Family struct{ generated }

// MultiStep is the multistep task family: the chains of NewChainSplit,
// configured by a ChainConfig, whose evaluations break down by step count
// (Set.TaskGroup). Register it with family.Register.
type MultiStep struct{ generated }

var (
	_ family.Family = Family{}
	_ family.Family = MultiStep{}
	_ family.Set    = (*Set)(nil)
)

// Name implements family.Family.
func (Family) Name() string { return FamilyName }

// Name implements family.Family.
func (MultiStep) Name() string { return MultiStepName }

// DefaultConfig implements family.Family: a *Config.
func (Family) DefaultConfig() any { c := DefaultConfig(); return &c }

// DefaultConfig implements family.Family: a *ChainConfig.
func (MultiStep) DefaultConfig() any { c := DefaultChainConfig(); return &c }

// generated is what both families share: problems generated from a
// config section, solved with Go code in the sandbox, judged by their
// final answer, with worked solutions of their own for the warm start.
type generated struct{ family.SandboxOnly }

// section is a family's config section, *Config or *ChainConfig.
type section interface {
	Validate() error
	// open splits the section's problems into a Set.
	open(f format.Format) (*Set, error)
	kind() *kind
}

// Validate implements family.Family.
func (generated) Validate(s any) error {
	sec := s.(section)
	return sec.kind().wrap(sec.Validate())
}

// Rewards implements family.Family: the math components.
func (generated) Rewards() []string { return reward.AnswerRewards() }

// WritesDemos implements family.Family.
func (generated) WritesDemos() bool { return true }

// Open implements family.Family with the section's split.
func (generated) Open(s any, f format.Format) (family.Set, error) {
	sec := s.(section)
	set, err := sec.open(f)
	if err != nil {
		return nil, sec.kind().wrap(err)
	}
	return set, nil
}

func (c *Config) kind() *kind { return oneOp }

func (c *Config) open(f format.Format) (*Set, error) {
	train, heldout, err := NewSplit(*c)
	return oneOp.set(f, train, heldout, c.TrainSeed), err
}

func (c *ChainConfig) kind() *kind { return chained }

func (c *ChainConfig) open(f format.Format) (*Set, error) {
	train, heldout, err := NewChainSplit(*c)
	return chained.set(f, train, heldout, c.TrainSeed), err
}

// kind is one of the two sorts of problem: the family that generates it,
// and how a task's worked solution in a language is read back from its ID.
type kind struct {
	name  string
	solve func(id string, l lang) (solution, bool)
}

var (
	oneOp = &kind{FamilyName, func(id string, l lang) (solution, bool) {
		p, ok := parseID(id)
		if !ok {
			return solution{}, false
		}
		return p.solution(l), true
	}}
	chained = &kind{MultiStepName, func(id string, l lang) (solution, bool) {
		p, ok := parseChainID(id)
		if !ok {
			return solution{}, false
		}
		return p.solution(l), true
	}}
)

// wrap names the kind's config section in a non-nil err.
func (k *kind) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%[1]s: task.%[1]s: %[2]w", k.name, err)
}

// set is the Set of a split.
func (k *kind) set(f format.Format, train *Generator, heldout []envs.Task, seed int64) *Set {
	return &Set{kind: k, Answers: reward.Answers{Format: f}, Generated: family.Generated{Family: k.name, Sampler: train, Tasks: heldout, Seed: seed}}
}

// Set is a family opened on its config.
type Set struct {
	kind *kind
	reward.Answers
	family.Generated
}

// TaskGroup names the group of a task in evaluation breakdowns: "steps=N"
// for a chain, "" for any other task (the arith family names no groups).
func (*Set) TaskGroup(t envs.Task) string {
	n, ok := Steps(t)
	if !ok {
		return ""
	}
	return "steps=" + strconv.Itoa(n)
}

// Demonstrations implements family.Set: req.Size tasks drawn with
// req.Sample, each calling the tool with probability req.ToolFraction (one
// req.RNG draw per task, in order), written as Demonstrations writes them
// with a working tool of its own: the library stands for solutions
// written ahead of time. The code is Python, run in a jailed python3,
// when req.ToolKind is family.PythonTool, and Go in the sandbox
// otherwise; both make the same calls and print the same values.
func (s *Set) Demonstrations(ctx context.Context, req family.DemoRequest) ([]rollout.Demo, error) {
	tasks := req.Sample(req.Size)
	useTool := make([]bool, len(tasks))
	for i := range useTool {
		useTool[i] = req.RNG.Float64() < req.ToolFraction
	}
	l := langOf(req.ToolKind)
	tool, closeTool, err := l.open(req.Python)
	if err != nil {
		return nil, fmt.Errorf("%s: demonstrations in %s: %w", s.kind.name, l, err)
	}
	defer closeTool()
	return s.kind.demonstrations(ctx, req.Format, tasks, useTool, tool, l, req.Progress)
}

// Demonstrations writes one worked solution per arith task, in f's style
// (rollout.Program). Each first states its plan, the arithmetic to do, as
// reasoning; where useTool[i] it then runs that arithmetic as Go code in
// the tool (the real output is recorded) and answers with the output,
// otherwise it answers directly. A tool result that is not the true value
// is an error: the library holds only correct solutions.
func Demonstrations(ctx context.Context, f format.Format, tasks []envs.Task, useTool []bool, tool envs.Tool) ([]rollout.Demo, error) {
	return oneOp.demonstrations(ctx, f, tasks, useTool, tool, goCode, nil)
}

// ChainDemonstrations is Demonstrations for chains: the plan is the whole
// chain (Chain.Expression), and where useTool[i] the solution calls the
// tool once per step, each snippet starting from the value the previous
// call printed (the tool keeps no state between calls), and answers with
// the last output.
func ChainDemonstrations(ctx context.Context, f format.Format, tasks []envs.Task, useTool []bool, tool envs.Tool) ([]rollout.Demo, error) {
	return chained.demonstrations(ctx, f, tasks, useTool, tool, goCode, nil)
}

// solution is a problem's worked solution: the plan a demonstration
// states, then the tool calls that carry it out.
type solution struct {
	plan  string
	calls []call
}

// call is one snippet of a solution and the value it must print.
type call struct {
	code string
	want int
}

// demonstrations writes the worked solutions of the kind's tasks in l
// (see Demonstrations), its code run in tool, which must run l, reporting
// each written one to report (family.DemoRequest.Report; nil reports
// nothing).
func (k *kind) demonstrations(ctx context.Context, f format.Format, tasks []envs.Task, useTool []bool, tool envs.Tool, l lang, report func(done, total int)) ([]rollout.Demo, error) {
	return family.WriteDemos(len(tasks), report, func(i int) (rollout.Demo, error) {
		return k.demonstration(ctx, f, tasks[i], useTool[i], tool, l)
	})
}

// demonstration writes the worked solution of t in l.
func (k *kind) demonstration(ctx context.Context, f format.Format, t envs.Task, useTool bool, tool envs.Tool, l lang) (rollout.Demo, error) {
	sol, ok := k.solve(t.ID, l)
	if !ok {
		return rollout.Demo{}, fmt.Errorf("%s: demonstrations: task %s has no reference solution", k.name, t.ID)
	}
	prog := rollout.NewProgram(f).Think(sol.plan)
	if !useTool {
		return rollout.Demo{Task: t, Segments: prog.Answer(t.Answer).Segments()}, nil
	}
	if err := sol.run(ctx, prog, tool); err != nil {
		return rollout.Demo{}, fmt.Errorf("%s: demonstrations: %s: %w", k.name, t.ID, err)
	}
	return rollout.Demo{Task: t, UsesTool: true, Segments: prog.Segments()}, nil
}

// run makes each call in the tool, adding its snippet and result to prog,
// then the last value as the answer.
func (s solution) run(ctx context.Context, prog *rollout.Program, tool envs.Tool) error {
	for i, c := range s.calls {
		res := tool.Call(ctx, c.code)
		if got := strings.TrimSpace(res.Output); res.Status != envs.StatusOK || got != strconv.Itoa(c.want) {
			return fmt.Errorf("step %d code %q gave %s %q, want %d", i+1, c.code, res.Status, res.Output, c.want)
		}
		prog.Call(c.code, res.Output)
	}
	prog.Answer(strconv.Itoa(s.calls[len(s.calls)-1].want))
	return nil
}
