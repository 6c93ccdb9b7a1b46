// Package family declares what a task family is, and keeps the registry
// of families.
//
// A task family (synthetic arithmetic, math problems from files, BFCL v3
// function calling, ...) is one package that knows its tasks, their
// splits and benchmarks, the tools their calls run in, how to write
// warm-start demonstrations, which reward components judge them and how
// correctness is decided, and its section of the run config. The trainer,
// the benchmark evaluator and the command line know families only
// through this package: adding one is a new package that implements
// Family and one Register call where the program is wired (see
// docs/ARCHITECTURE.md, "Adding a task family").
//
// The interfaces live here, not in the trainer that uses them most,
// because the families implement them and register here: a family
// package imports envs, rollout and this package, never the trainer, so
// dependencies keep pointing one way.
package family

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/pysandbox"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// SandboxTool is the tool kind of Go code run in the yaegi sandbox, which
// the trainer builds itself (with its tool library) for the families that
// list it among their ToolKinds.
const SandboxTool = "sandbox"

// PythonTool is the tool kind of Python code run in jailed python3
// workers (envs/pysandbox). The trainer builds it itself, as it does the
// sandbox, and allows it wherever a family lists SandboxTool.
const PythonTool = "python"

// Family is one task family.
type Family interface {
	// Name is the family's task.name in the config, and the key of its
	// config section (task.<name>).
	Name() string
	// DefaultConfig returns a new config section holding the family's
	// documented defaults: a pointer to a struct whose fields carry yaml
	// tags. The config decodes the task.<name> keys of a file onto it,
	// strictly (unknown keys are errors naming the key).
	DefaultConfig() any
	// Validate checks a section that DefaultConfig returned and the
	// config decoded onto; an error names the key under task.<name>
	// and the fix.
	Validate(section any) error
	// ToolKinds lists the tool.kind values whose calls the family's
	// tasks understand, the preferred one first: SandboxTool, or a kind
	// that Set.Tool opens. "disabled" (the ablation) is always allowed.
	ToolKinds() []string
	// Rewards lists the reward components (reward.Names) that can judge
	// the family's tasks.
	Rewards() []string
	// WritesDemos reports whether Set.Demonstrations writes a warm-start
	// library; a family that writes none trains with warmstart.steps 0.
	WritesDemos() bool
	// Open loads the training pool and held-out split that section
	// describes; f names the tags of the rollout text.
	Open(section any, f format.Format) (Set, error)
}

// Set is a family opened on its config section, or on one benchmark:
// its tasks and what judges them. A Set is safe for concurrent use.
type Set interface {
	// Train draws training tasks; nil for a benchmark.
	Train() envs.Sampler
	// Heldout is the evaluation split (a benchmark's problems).
	Heldout() []envs.Task
	// TaskSeed is mixed into the run's seed for the training-task draws
	// (seed ^ TaskSeed<<32), so that the family's train draws and its
	// held-out split come from different seeds; 0 mixes nothing.
	TaskSeed() int64
	// Tool opens the tool of a kind of the family's ToolKinds other than
	// SandboxTool: the calls of every task of the set, a SessionTool for
	// stateful environments.
	Tool(kind string) (envs.Tool, error)
	// Demonstrations writes the warm-start library (see DemoRequest);
	// a family whose WritesDemos is false returns an error.
	Demonstrations(ctx context.Context, req DemoRequest) ([]rollout.Demo, error)
	// Supplies are the values the family's reward components are built
	// from beside the format (reward.Env.Supplies).
	Supplies() []any
	// Judge decides whether a rollout solved its task (t.Task).
	Judge(t *rollout.Trajectory) Verdict
}

// Voter is a Set whose tasks have final answers that can be put to a
// majority vote (maj@k): Same is the answers' equivalence.
type Voter interface {
	Same(a, b string) bool
}

// Verdict is a Set's judgement of one rollout.
type Verdict struct {
	// Correct is the accuracy (pass@1) criterion.
	Correct bool
	// Reason says in words why, for people reading samples.
	Reason string
	// Answer is the final answer extracted from the response, for
	// families with answers (empty otherwise, or when none was found).
	Answer string
	// Detail is the family's own record of the judgement (for example
	// the official checker's verdict), written with each benchmark
	// sample; nil when there is none.
	Detail any
}

// DemoRequest is what a family needs to write its warm-start library.
type DemoRequest struct {
	// Format is the run's format: the demonstrations write its style
	// (tags, or ART's program lines; rollout.Program writes either).
	Format format.Format
	// Size is how many demonstrations to write (warmstart.demos), for
	// families that draw them; others write one per training task.
	Size int
	// ToolFraction is the share that call the tool
	// (warmstart.tool_fraction), for families that draw them.
	ToolFraction float64
	// Sample draws n training tasks from the run's demonstration task
	// stream.
	Sample func(n int) []envs.Task
	// RNG is the run's demonstration stream, for any other choice.
	RNG *rand.Rand
	// ToolKind is the run's tool.kind. A family whose demonstrations
	// write code writes it in the language of that tool: Python for
	// PythonTool, Go for SandboxTool (and for any kind it does not know).
	ToolKind string
	// Python is the run's tool.python (the interpreter and bubblewrap)
	// for a family that runs its Python demonstrations; the zero value
	// is pysandbox's default.
	Python pysandbox.Runtime
	// UserTurn renders a later user message as the engine appends it.
	UserTurn func(msg string) string
	// EOS is the text of the end-of-sequence token that ends a turn.
	EOS string
	// Progress, when set, hears how many demonstrations are written, out
	// of how many, as the family writes them (for a progress bar); use
	// Report, which skips a nil Progress.
	Progress func(done, total int)
}

// WriteDemos writes n demonstrations with write(i), in order, reporting
// each to report (a DemoRequest's Progress; nil reports nothing); the
// first error stops it.
func WriteDemos(n int, report func(done, total int), write func(i int) (rollout.Demo, error)) ([]rollout.Demo, error) {
	demos := make([]rollout.Demo, n)
	for i := range demos {
		d, err := write(i)
		if err != nil {
			return nil, err
		}
		demos[i] = d
		if report != nil {
			report(i+1, n)
		}
	}
	return demos, nil
}

// Report passes done of total to r.Progress, if set.
func (r DemoRequest) Report(done, total int) {
	if r.Progress != nil {
		r.Progress(done, total)
	}
}

// Bencher is a Family with named benchmarks (held-out sets read from a
// data folder) that the evaluator can run.
type Bencher interface {
	Family
	// Benchmarks lists the benchmark names, in reporting order.
	Benchmarks() []string
	// OpenBenchmark loads benchmark name from dataDir, with section (the
	// family's config section, DefaultConfig when the run had none)
	// and the format's tags. Its Set's Heldout holds the problems.
	OpenBenchmark(dataDir, name string, section any, f format.Format) (Set, error)
	// BenchmarkRewards lists the reward components recorded, unweighted,
	// with every benchmark sample and averaged in the summary; nil
	// records none.
	BenchmarkRewards() []string
	// BenchmarkDefaults is a config file (YAML, holding only what
	// differs from the documented defaults) that evaluating the family's
	// benchmarks without a run's config starts from: the family's task,
	// tags, tool and rewards.
	BenchmarkDefaults() string
}

// Grouper is a Bencher whose benchmarks also add up to an overall score
// (the unweighted mean of its members), reported when more than one
// member is evaluated.
type Grouper interface {
	// Group returns the name of the overall score benchmark name counts
	// towards.
	Group(name string) (group string, ok bool)
}

var (
	mu       sync.RWMutex
	families []Family
)

// Register adds a family. A second family of the same name, or one with
// a benchmark name already taken, is a programmer error and panics.
func Register(f Family) {
	mu.Lock()
	defer mu.Unlock()
	for _, g := range families {
		if g.Name() == f.Name() {
			panic("family: duplicate family " + f.Name())
		}
		for _, b := range benchmarks(f) {
			if slices.Contains(benchmarks(g), b) {
				panic("family: benchmark " + b + " registered by both " + g.Name() + " and " + f.Name())
			}
		}
	}
	families = append(families, f)
}

func benchmarks(f Family) []string {
	if b, ok := f.(Bencher); ok {
		return b.Benchmarks()
	}
	return nil
}

// VerdictLabeler is a Family whose verdicts come from a judge of its own,
// which VerdictLabel names in a word (BFCL's: "checker", its official
// checker); the run viewer shows it before each verdict, and "verdict"
// for the families that are none.
type VerdictLabeler interface {
	VerdictLabel() string
}

// VerdictLabels maps the name of each registered VerdictLabeler to its
// label.
func VerdictLabels() map[string]string {
	out := map[string]string{}
	for _, f := range All() {
		if l, ok := f.(VerdictLabeler); ok {
			out[f.Name()] = l.VerdictLabel()
		}
	}
	return out
}

// All returns the registered families in registration order.
func All() []Family {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(families)
}

// Names returns the registered family names, sorted.
func Names() []string {
	var out []string
	for _, f := range All() {
		out = append(out, f.Name())
	}
	slices.Sort(out)
	return out
}

// Lookup returns the family called name; an unknown name is an error
// that lists the registered ones.
func Lookup(name string) (Family, error) {
	for _, f := range All() {
		if f.Name() == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("family: task %q is unknown: the task families are %s", name, orNone(Names()))
}

// Benchmarks returns every registered benchmark name, family by family
// in registration order.
func Benchmarks() []string {
	var out []string
	for _, f := range All() {
		out = append(out, benchmarks(f)...)
	}
	return out
}

// BenchmarkFamily returns the family that registered benchmark name; an
// unknown name is an error that lists the known ones.
func BenchmarkFamily(name string) (Bencher, error) {
	for _, f := range All() {
		if slices.Contains(benchmarks(f), name) {
			return f.(Bencher), nil
		}
	}
	return nil, fmt.Errorf("family: unknown benchmark %q: use %s", name, orNone(Benchmarks()))
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "(none registered)"
	}
	return strings.Join(names, ", ")
}
