package bfcl

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// FamilyName is the task.name of BFCL v3 multi-turn function calling.
const FamilyName = "bfcl"

// BenchmarkPrefix starts the names of the BFCL v3 multi-turn benchmarks:
// bfcl_v3_base, bfcl_v3_miss_func, bfcl_v3_miss_param,
// bfcl_v3_long_context.
const BenchmarkPrefix = "bfcl_v3_"

// Overall names the unweighted mean of the categories evaluated, the
// leaderboard's overall score.
const Overall = BenchmarkPrefix + "overall"

// Config is the task.bfcl section: multi-turn conversations whose calls
// run in the Go ports of the BFCL v3 APIs (tool.kind bfcl), scored by the
// function-calling rewards and, for accuracy, by the official checker.
type Config struct {
	// Data is the folder of the BFCL v3 files (scripts/fetch-data.sh).
	// Default "data/bfcl_v3".
	Data string `yaml:"data"`
	// Category is base (default), miss_func, miss_param or long_context.
	Category string `yaml:"category"`
	// Train and Heldout are the sizes of the training pool and the
	// validation set, drawn without overlap from the category's entries
	// shuffled by SplitSeed. Defaults 100 and 100, as in the paper.
	Train   int `yaml:"train"`
	Heldout int `yaml:"heldout"`
	// SplitSeed shuffles the entries before the split; it is apart from
	// the run's seed so that runs of different seeds share the split.
	// Default 0.
	SplitSeed int64 `yaml:"split_seed"`
	// Docs is how prompts list the functions: "json" (default, the
	// documentation as BFCL gives it) or "signatures" (one compact line
	// per function, for small models).
	Docs string `yaml:"docs"`
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Data: "data/bfcl_v3", Category: "base", Train: 100, Heldout: 100, Docs: DocsJSON}
}

// Validate names the first key that cannot run.
func (c Config) Validate() error {
	switch {
	case c.Data == "":
		return fmt.Errorf("bfcl: task.bfcl.data is empty: name the BFCL v3 folder (see scripts/fetch-data.sh)")
	case !slices.Contains(Categories, c.Category):
		return fmt.Errorf("bfcl: task.bfcl.category %q is unknown: use one of %s", c.Category, strings.Join(Categories, ", "))
	case c.Train < 1 || c.Heldout < 1:
		return fmt.Errorf("bfcl: task.bfcl.train and task.bfcl.heldout must be >= 1, got %d and %d", c.Train, c.Heldout)
	}
	if err := (TaskOptions{Docs: c.Docs}).Validate(); err != nil {
		return fmt.Errorf("bfcl: task.bfcl.docs: %w", err)
	}
	return nil
}

// Family is the bfcl task family. Register it with family.Register.
type Family struct{}

var (
	_ family.Bencher = Family{}
	_ family.Grouper = Family{}
	_ family.Set     = (*Set)(nil)
)

// Name implements family.Family.
func (Family) Name() string { return FamilyName }

// VerdictLabel implements family.VerdictLabeler: the verdicts are the
// official checker's.
func (Family) VerdictLabel() string { return "checker" }

// DefaultConfig implements family.Family: a *Config.
func (Family) DefaultConfig() any { c := DefaultConfig(); return &c }

// Validate implements family.Family.
func (Family) Validate(section any) error { return section.(*Config).Validate() }

// ToolKinds implements family.Family: the calls run on the entry's API
// instances (kind "bfcl").
func (Family) ToolKinds() []string { return []string{FamilyName} }

// Rewards implements family.Family: the function-calling components.
func (Family) Rewards() []string { return []string{"fc_format", "fc_function", "fc_state"} }

// WritesDemos implements family.Family: the ground truth of every
// training entry, replayed.
func (Family) WritesDemos() bool { return true }

// Open implements family.Family: it loads the category and splits its
// entries, shuffled by the split seed, into the training pool and the
// validation set.
func (Family) Open(section any, _ format.Format) (family.Set, error) {
	c := *section.(*Config)
	d, err := Load(datadir.Path(c.Data))
	if err != nil {
		return nil, fmt.Errorf("bfcl: task.bfcl.data: %w (fetch it with scripts/fetch-data.sh)", err)
	}
	entries, err := d.Entries(c.Category)
	if err != nil {
		return nil, fmt.Errorf("bfcl: task.bfcl: %w", err)
	}
	if c.Train+c.Heldout > len(entries) {
		return nil, fmt.Errorf("bfcl: task.bfcl: train %d + heldout %d exceed the %d entries of %s", c.Train, c.Heldout, len(entries), c.Category)
	}
	perm := rand.New(rand.NewSource(c.SplitSeed)).Perm(len(entries))
	s := &Set{data: d, category: c.Category, golds: NewGolds(d)}
	for i, p := range perm[:c.Train+c.Heldout] {
		if i < c.Train {
			s.train = append(s.train, entries[p])
		} else {
			s.heldout = append(s.heldout, entries[p])
		}
	}
	if err := s.makeTasks(TaskOptions{Docs: c.Docs}); err != nil {
		return nil, err
	}
	return s, nil
}

// Benchmarks implements family.Bencher: one benchmark per category.
func (Family) Benchmarks() []string {
	out := make([]string, len(Categories))
	for i, c := range Categories {
		out[i] = BenchmarkPrefix + c
	}
	return out
}

// BenchmarkCategory returns the category of a benchmark name.
func BenchmarkCategory(name string) (string, bool) {
	c, ok := strings.CutPrefix(name, BenchmarkPrefix)
	if !ok || !slices.Contains(Categories, c) {
		return "", false
	}
	return c, true
}

// OpenBenchmark implements family.Bencher: every entry of the category
// under dataDir/bfcl_v3, its functions listed as section.Docs says.
func (Family) OpenBenchmark(dataDir, name string, section any, _ format.Format) (family.Set, error) {
	cat, ok := BenchmarkCategory(name)
	if !ok {
		return nil, fmt.Errorf("bfcl: %q is not a BFCL benchmark: use %s<category>", name, BenchmarkPrefix)
	}
	d, err := Load(filepath.Join(dataDir, "bfcl_v3"))
	if err != nil {
		return nil, fmt.Errorf("bfcl: %s: %w (fetch it with scripts/fetch-data.sh)", name, err)
	}
	entries, err := d.Entries(cat)
	if err != nil {
		return nil, fmt.Errorf("bfcl: %s: %w", name, err)
	}
	s := &Set{data: d, category: cat, heldout: entries, golds: NewGolds(d)}
	if err := s.makeTasks(TaskOptions{Docs: section.(*Config).Docs}); err != nil {
		return nil, fmt.Errorf("bfcl: %s: %w", name, err)
	}
	return s, nil
}

// BenchmarkRewards implements family.Bencher.
func (Family) BenchmarkRewards() []string { return Family{}.Rewards() }

// BenchmarkDefaults implements family.Bencher: the function-calling tags
// of the paper, the BFCL tool and the function-calling rewards.
func (Family) BenchmarkDefaults() string {
	return `task: {name: bfcl}
tool: {kind: bfcl}
format: {think: reasoning, code: tool, output: tool_result}
reward: {weights: {fc_format: 1, fc_function: 1, fc_state: 1}}
`
}

// Group implements family.Grouper: every category counts towards
// Overall.
func (Family) Group(name string) (string, bool) {
	_, ok := BenchmarkCategory(name)
	return Overall, ok
}

// Set is the bfcl family opened on a split or a benchmark.
type Set struct {
	data           *Data
	category       string
	train, heldout []Entry
	trainTasks     envs.List
	heldoutTasks   []envs.Task
	byID           map[string]Entry
	golds          *Golds // the ground-truth replays the checker and the rewards share
}

func (s *Set) makeTasks(o TaskOptions) error {
	var err error
	if len(s.train) > 0 {
		if s.trainTasks, err = Tasks(s.data, s.train, o); err != nil {
			return fmt.Errorf("bfcl: task.bfcl: %w", err)
		}
	}
	if s.heldoutTasks, err = Tasks(s.data, s.heldout, o); err != nil {
		return fmt.Errorf("bfcl: task.bfcl: %w", err)
	}
	s.byID = map[string]Entry{}
	for _, e := range slices.Concat(s.train, s.heldout) {
		s.byID[e.ID] = e
	}
	return nil
}

// Train implements family.Set: the training pool, drawn uniformly.
func (s *Set) Train() envs.Sampler {
	if s.trainTasks == nil {
		return nil
	}
	return s.trainTasks
}

// Heldout implements family.Set.
func (s *Set) Heldout() []envs.Task { return s.heldoutTasks }

// TrainEntries are the entries of the training pool, in pool order.
func (s *Set) TrainEntries() []Entry { return s.train }

// TaskSeed implements family.Set: the split has its own seed.
func (*Set) TaskSeed() int64 { return 0 }

// Tool implements family.Set: the calls of every entry of the set.
func (s *Set) Tool(kind string) (envs.Tool, error) {
	if kind != FamilyName {
		return nil, fmt.Errorf("bfcl: no tool of kind %q: use tool.kind: %s", kind, FamilyName)
	}
	return s.tool(), nil
}

func (s *Set) tool() *Tool { return NewTool(s.data, slices.Concat(s.train, s.heldout)) }

// Supplies implements family.Set: the Scope the function-calling rewards
// replay.
func (s *Set) Supplies() []any {
	return []any{Scope{Data: s.data, Category: s.category, Golds: s.golds}}
}

// Judge implements family.Set with the official checker: correct when it
// passes every turn. Detail is the *Verdict.
func (s *Set) Judge(t *rollout.Trajectory) family.Verdict {
	v := s.check(t)
	if v.Valid {
		return family.Verdict{Correct: true, Reason: "correct: the checker passes every turn", Detail: &v}
	}
	return family.Verdict{Reason: fmt.Sprintf("incorrect: %s: %s", v.ErrorType, v.Message), Detail: &v}
}

// check scores t with the official multi-turn checker against the entry
// its task names; an entry not of the set fails with ErrSetup.
func (s *Set) check(t *rollout.Trajectory) Verdict {
	e, ok := s.byID[t.Task.ID]
	if !ok {
		return Verdict{ErrorType: ErrSetup, Turn: -1, Message: fmt.Sprintf("no %s entry %q", s.category, t.Task.ID)}
	}
	return s.golds.Check(e, TrajectoryTurns(t))
}

// TrajectoryTurns returns the policy's calls in t as Check reads them:
// t.Turns turns (at least one), and in each the steps of that turn, one
// per tool block, holding the calls StepCalls reads from the block (none
// when it does not parse).
func TrajectoryTurns(t *rollout.Trajectory) [][][]string {
	turns := make([][][]string, max(t.Turns, 1))
	for _, c := range t.Calls {
		if c.Turn >= 0 && c.Turn < len(turns) {
			turns[c.Turn] = append(turns[c.Turn], StepCalls(c.Input))
		}
	}
	return turns
}
