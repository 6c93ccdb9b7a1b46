package mathtask

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// FamilyName is the task.name of math problems read from files.
const FamilyName = "math"

// Config is the task.math section: the files of the training pool and
// the held-out set (see Load for their formats).
type Config struct {
	// Train is the training pool, e.g. data/math_train/math.json.
	Train string `yaml:"train"`
	// Eval is the held-out set, e.g. data/math500/test.jsonl.
	Eval string `yaml:"eval"`
}

// benchmarks are the math benchmarks in reporting order, with their file
// under the data folder.
var benchmarks = []struct{ name, file string }{
	{"math500", "math500/test.jsonl"},
	{"aime24", "aime24/test.jsonl"},
	{"aime25", "aime25/test.jsonl"},
	{"amc23", "amc23/test.jsonl"},
	{"olympiad", "olympiadbench/test.jsonl"},
}

// Family is the math task family: problems with final answers, solved
// with Go code in the sandbox, judged by the math grader. It writes no
// warm-start demonstrations. Register it with family.Register.
type Family struct{ family.SandboxOnly }

var (
	_ family.Bencher = Family{}
	_ family.Set     = (*Set)(nil)
)

// Name implements family.Family.
func (Family) Name() string { return FamilyName }

// DefaultConfig implements family.Family: a *Config with no files.
func (Family) DefaultConfig() any { return &Config{} }

// Validate implements family.Family: both files must be named.
func (Family) Validate(section any) error {
	if c := section.(*Config); c.Train == "" || c.Eval == "" {
		return fmt.Errorf("mathtask: task.math.train and task.math.eval must name problem files (see scripts/fetch-data.sh)")
	}
	return nil
}

// Rewards implements family.Family: the math components.
func (Family) Rewards() []string { return reward.AnswerRewards() }

// WritesDemos implements family.Family: there are no worked solutions to
// write from.
func (Family) WritesDemos() bool { return false }

// Open implements family.Family: it loads both files.
func (Family) Open(section any, f format.Format) (family.Set, error) {
	c := section.(*Config)
	train, _, err := Load(datadir.Path(c.Train))
	if err != nil {
		return nil, fmt.Errorf("mathtask: task.math.train: %w", err)
	}
	heldout, _, err := Load(datadir.Path(c.Eval))
	if err != nil {
		return nil, fmt.Errorf("mathtask: task.math.eval: %w", err)
	}
	return &Set{Answers: reward.Answers{Format: f}, train: train, heldout: heldout}, nil
}

// Benchmarks implements family.Bencher.
func (Family) Benchmarks() []string {
	out := make([]string, len(benchmarks))
	for i, b := range benchmarks {
		out[i] = b.name
	}
	return out
}

// OpenBenchmark implements family.Bencher: the problems of the
// benchmark's file under dataDir (for example dataDir/math500/test.jsonl).
func (Family) OpenBenchmark(dataDir, name string, _ any, f format.Format) (family.Set, error) {
	i := slices.IndexFunc(benchmarks, func(b struct{ name, file string }) bool { return b.name == name })
	if i < 0 {
		return nil, fmt.Errorf("mathtask: %q is not a math benchmark", name)
	}
	tasks, _, err := Load(filepath.Join(dataDir, benchmarks[i].file))
	if err != nil {
		return nil, fmt.Errorf("mathtask: %s: %w", name, err)
	}
	return &Set{Answers: reward.Answers{Format: f}, heldout: tasks}, nil
}

// BenchmarkRewards implements family.Bencher.
func (Family) BenchmarkRewards() []string { return nil }

// BenchmarkDefaults implements family.Bencher: the documented defaults
// (the math tags, the sandbox and the math rewards) need nothing more.
func (Family) BenchmarkDefaults() string { return "" }

// Set is the math family opened on its files or a benchmark.
type Set struct {
	reward.Answers
	train   envs.List
	heldout []envs.Task
}

// Train implements family.Set: the pool, drawn uniformly; nil for a
// benchmark.
func (s *Set) Train() envs.Sampler {
	if s.train == nil {
		return nil
	}
	return s.train
}

// Heldout implements family.Set.
func (s *Set) Heldout() []envs.Task { return s.heldout }

// TaskSeed implements family.Set.
func (*Set) TaskSeed() int64 { return 0 }

// Tool implements family.Set: the family has no tool of its own.
func (*Set) Tool(kind string) (envs.Tool, error) {
	return nil, fmt.Errorf("mathtask: no tool of kind %q: use tool.kind: %s", kind, family.SandboxTool)
}

// Supplies implements family.Set: the math components need only the
// format.
func (*Set) Supplies() []any { return nil }

// Demonstrations implements family.Set: the family writes none.
func (*Set) Demonstrations(context.Context, family.DemoRequest) ([]rollout.Demo, error) {
	return nil, fmt.Errorf("mathtask: the math family writes no demonstrations: set warmstart.steps: 0")
}
