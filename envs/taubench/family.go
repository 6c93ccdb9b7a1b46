package taubench

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/rollout/format"
)

// FamilyName is the task.name (and tool.kind) of tau-bench.
const FamilyName = "taubench"

// BenchmarkPrefix starts the benchmark names: taubench_airline and
// taubench_retail (each domain's test split).
const BenchmarkPrefix = "taubench_"

// Splits lists the task splits of each domain.
var Splits = map[string][]string{Retail: {"train", "dev", "test"}, Airline: {"test"}}

// Documentation styles of Config.Docs.
const (
	DocsJSON       = "json"
	DocsSignatures = "signatures"
)

// User kinds of UserConfig.Kind.
const (
	UserScripted   = "scripted"
	UserOpenAI     = "openai"
	UserCheckpoint = "checkpoint"
)

// Config is the task.taubench section: conversations with a simulated
// customer of the airline or retail domain, whose calls run on a fresh
// database per trajectory (tool.kind taubench).
type Config struct {
	// Env is the domain: retail (default) or airline.
	Env string `yaml:"env"`
	// Split is the training split: train (default), dev or test for
	// retail; test for airline, which has no other.
	Split string `yaml:"split"`
	// Heldout is the validation split (default dev; airline: test).
	Heldout string `yaml:"heldout"`
	// Data is the folder of the domain folders (scripts/fetch-data.sh).
	// Default "data/tau_bench".
	Data string `yaml:"data"`
	// MaxReplies bounds the user's answers per trajectory (default 15,
	// about the reference's 30 agent steps).
	MaxReplies int `yaml:"max_replies"`
	// Docs is how prompts list the tools: "json" (default, each schema
	// of tools.json as the reference gives it to the agent) or
	// "signatures" (one name(params) line per tool, for small models).
	Docs string `yaml:"docs"`
	// User is the simulated customer.
	User UserConfig `yaml:"user"`
}

// UserConfig is the simulated customer. Kind scripted (default) opens
// with the task's instruction and then says Script, one utterance per
// reply, then StopMarker; kind openai is a model behind an
// OpenAI-compatible chat-completions endpoint, and kind checkpoint one of
// our checkpoints run in this process (UserModel), both prompted by
// UserPrompt.
type UserConfig struct {
	Kind   string   `yaml:"kind"`
	Script []string `yaml:"script"`
	// URL and Model name the server of kind openai; Timeout bounds one
	// request (default 60s).
	URL   string `yaml:"url"`
	Model string `yaml:"model"`
	// Checkpoint is the checkpoint folder of kind checkpoint, rendered
	// with its own chat template.
	Checkpoint string `yaml:"checkpoint"`
	// Temperature (default 0), Seed (default 0) and MaxTokens (default
	// 512; 0: the server's default, or the rest of the checkpoint's
	// context) set the sampling of kinds openai and checkpoint. The
	// user of the task at index i of its split samples with Seed+i, so
	// a seed fixes every conversation.
	Temperature float64       `yaml:"temperature"`
	Seed        int64         `yaml:"seed"`
	MaxTokens   int           `yaml:"max_tokens"`
	Timeout     time.Duration `yaml:"timeout"`
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Env: Retail, Split: "train", Heldout: "dev", Data: "data/tau_bench", MaxReplies: 15, Docs: DocsJSON,
		User: UserConfig{Kind: UserScripted, MaxTokens: DefaultUserMaxTokens, Timeout: DefaultChatTimeout}}
}

// DefaultUserMaxTokens is the default of task.taubench.user.max_tokens.
const DefaultUserMaxTokens = 512

// simulated reports whether the user is a model (kinds openai and
// checkpoint), which opens each task once and answers through a ChatFunc.
func (u UserConfig) simulated() bool {
	return u.Kind == UserOpenAI || u.Kind == UserCheckpoint
}

// Validate names the first key that cannot run.
func (c Config) Validate() error {
	splits, ok := Splits[c.Env]
	switch {
	case !ok:
		return fmt.Errorf("taubench: task.taubench.env %q is unknown: use %s or %s", c.Env, Retail, Airline)
	case !slices.Contains(splits, c.Split):
		return fmt.Errorf("taubench: task.taubench.split %q: %s has the splits %s", c.Split, c.Env, strings.Join(splits, ", "))
	case !slices.Contains(splits, c.Heldout):
		return fmt.Errorf("taubench: task.taubench.heldout %q: %s has the splits %s", c.Heldout, c.Env, strings.Join(splits, ", "))
	case c.Data == "":
		return fmt.Errorf("taubench: task.taubench.data is empty: name the tau-bench folder (see scripts/fetch-data.sh)")
	case c.MaxReplies < 1:
		return fmt.Errorf("taubench: task.taubench.max_replies must be >= 1, got %d", c.MaxReplies)
	case c.Docs != DocsJSON && c.Docs != DocsSignatures:
		return fmt.Errorf("taubench: task.taubench.docs %q is unknown: use %s or %s", c.Docs, DocsJSON, DocsSignatures)
	}
	return c.User.Validate()
}

// Validate names the first key of task.taubench.user that cannot run.
func (u UserConfig) Validate() error {
	switch {
	case u.Kind != UserScripted && u.Kind != UserOpenAI && u.Kind != UserCheckpoint:
		return fmt.Errorf("taubench: task.taubench.user.kind %q is unknown: use %s, %s or %s", u.Kind, UserScripted, UserOpenAI, UserCheckpoint)
	case u.Kind == UserOpenAI && (u.URL == "" || u.Model == ""):
		return fmt.Errorf("taubench: task.taubench.user.url and .model are needed by kind %s (an OpenAI-compatible server such as vLLM)", UserOpenAI)
	case u.Kind == UserCheckpoint && u.Checkpoint == "":
		return fmt.Errorf("taubench: task.taubench.user.checkpoint is needed by kind %s: name a checkpoint folder", UserCheckpoint)
	case u.Kind != UserCheckpoint && u.Checkpoint != "":
		return fmt.Errorf("taubench: task.taubench.user.checkpoint is set but user.kind is %s: set user.kind: %s to have the checkpoint play the customer", u.Kind, UserCheckpoint)
	case u.Temperature < 0 || u.Timeout < 0 || u.MaxTokens < 0:
		return fmt.Errorf("taubench: task.taubench.user.temperature, .max_tokens and .timeout must be >= 0, got %g, %d and %v", u.Temperature, u.MaxTokens, u.Timeout)
	}
	return nil
}

// Family is the tau-bench task family. Register it with family.Register.
type Family struct{}

var (
	_ family.Bencher = Family{}
	_ family.Set     = (*Set)(nil)
)

// Name implements family.Family.
func (Family) Name() string { return FamilyName }

// DefaultConfig implements family.Family: a *Config.
func (Family) DefaultConfig() any { c := DefaultConfig(); return &c }

// Validate implements family.Family.
func (Family) Validate(section any) error { return section.(*Config).Validate() }

// ToolKinds implements family.Family: the domain's tools on a fresh
// database per trajectory, with the simulated user (kind "taubench").
func (Family) ToolKinds() []string { return []string{FamilyName} }

// Rewards implements family.Family: the tau-bench components.
func (Family) Rewards() []string { return RewardNames }

// RewardNames are the reward components of tau-bench tasks (registered
// by package reward): the 0/1 reward and its parts (see Components).
var RewardNames = []string{"taubench_reward", "taubench_state", "taubench_function", "taubench_outputs", "taubench_format"}

// WritesDemos implements family.Family: tau-bench writes no warm-start
// library, so it trains with warmstart.steps 0 (from a checkpoint).
func (Family) WritesDemos() bool { return false }

// Open implements family.Family: the training split and the held-out
// split of the domain.
func (Family) Open(section any, f format.Format) (family.Set, error) {
	c := *section.(*Config)
	dir := filepath.Join(datadir.Path(c.Data), c.Env)
	train, err := openSplit(dir, c, c.Split)
	if err != nil {
		return nil, err
	}
	held, err := openSplit(dir, c, c.Heldout)
	if err != nil {
		return nil, err
	}
	return newSet(train, held, c, f)
}

// Benchmarks implements family.Bencher: each domain's test split.
func (Family) Benchmarks() []string {
	return []string{BenchmarkPrefix + Airline, BenchmarkPrefix + Retail}
}

// OpenBenchmark implements family.Bencher: the test split of the
// benchmark's domain under dataDir/tau_bench, with section's user.
func (Family) OpenBenchmark(dataDir, name string, section any, f format.Format) (family.Set, error) {
	env, ok := strings.CutPrefix(name, BenchmarkPrefix)
	if _, known := Splits[env]; !ok || !known {
		return nil, fmt.Errorf("taubench: %q is not a tau-bench benchmark: use %s%s or %s%s", name, BenchmarkPrefix, Airline, BenchmarkPrefix, Retail)
	}
	c := *section.(*Config)
	if err := c.User.Validate(); err != nil {
		return nil, err
	}
	c.Env, c.Split, c.Heldout = env, "test", "test"
	held, err := openSplit(filepath.Join(dataDir, "tau_bench", env), c, "test")
	if err != nil {
		return nil, fmt.Errorf("taubench: %s: %w", name, err)
	}
	return newSet(nil, held, c, f)
}

// BenchmarkRewards implements family.Bencher.
func (Family) BenchmarkRewards() []string { return RewardNames }

// BenchmarkDefaults implements family.Bencher: the function-calling tags
// of the paper, the tau-bench tool and rewards, and no warm start (the
// family writes no demonstrations).
func (Family) BenchmarkDefaults() string {
	return `task: {name: taubench}
tool: {kind: taubench}
format: {think: reasoning, code: tool, output: tool_result}
reward: {weights: {taubench_state: 1, taubench_function: 1, taubench_format: 1}}
warmstart: {steps: 0}
`
}
