package rollout

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Config sets the sampling parameters and budgets of a rollout. Start from
// DefaultConfig; a YAML file overrides only the keys it names.
type Config struct {
	// GroupSize is G, the number of trajectories sampled per task
	// (default 8). Training needs at least 2 for group-relative
	// advantages; evaluation may use 1.
	GroupSize int `yaml:"group_size"`
	// MaxResponseTokens bounds the tokens the policy samples per
	// trajectory (default 96). Tool-result tokens do not count against
	// it; they have their own budget, so a trajectory holds at most
	// MaxResponseTokens + MaxToolCalls*(MaxResultTokens + output tag
	// tokens) tokens after the prompt.
	MaxResponseTokens int `yaml:"max_response_tokens"`
	// MaxToolCalls bounds the tool calls per trajectory (default 2). A
	// code block closed after that many calls ends the trajectory with
	// StopMaxTurns without running. 0 disables the tool.
	MaxToolCalls int `yaml:"max_tool_calls"`
	// MaxResultTokens bounds the tokens of one tool result (default 24).
	// A longer result keeps its head and tail with TruncationMark between
	// them, and its Call is marked Truncated.
	MaxResultTokens int `yaml:"max_result_tokens"`
	// Temperature divides the logits before sampling (default 1.0); 0
	// means greedy decoding. Recorded log-probs are always at 1.
	Temperature float64 `yaml:"temperature"`
	// TopP keeps the smallest set of most likely tokens whose probability
	// reaches TopP (nucleus sampling; default 1.0, which keeps all).
	TopP float64 `yaml:"top_p"`
	// ToolTimeout is the deadline of one tool call (default 2s, written
	// as a duration string such as "500ms").
	ToolTimeout time.Duration `yaml:"tool_timeout"`
	// Batching is how the rollouts decode in process: "continuous" (the
	// only value) gives each trajectory a row of a continuous batcher
	// (Batcher, as artist serve decodes its requests), kept across its
	// tool calls, and each decode step takes whichever rows are ready.
	// "lockstep", which stepped the whole batch in one session, was
	// removed: it sampled the same trajectories bit for bit. The key
	// stays so that run folders which record it resume.
	Batching string `yaml:"batching"`
	// Servers are the base addresses of OpenAI-compatible rollout servers
	// (artist serve, SGLang, vLLM) that sample the training rollouts, a
	// segment per request with the prompt as token ids (default none: in
	// process). Only the trainer reads it.
	Servers []string `yaml:"servers,omitempty"`
	// WeightSync is how the trainer gives Servers new weights before a
	// step's rollouts (default "sglang"). "sglang": it writes them to a
	// new folder under the run folder and has each server load it (POST
	// /update_weights_from_disk with a weight_version, checked with GET
	// /get_model_info: artist serve, SGLang). "vllm-reload": it writes
	// them over the files of VLLMModelDir and has each server re-read that
	// folder (POST /collective_rpc reload_weights: vLLM started with
	// VLLM_SERVER_DEV_MODE=1); vLLM reports no weight version, so the
	// reload cannot be checked by one. Only the trainer reads it.
	WeightSync string `yaml:"weight_sync"`
	// VLLMModelDir is, with WeightSync "vllm-reload", the folder every
	// server was started on (vllm serve DIR), on a file system the
	// trainer writes and the servers read (default none; required then).
	VLLMModelDir string `yaml:"vllm_model_dir,omitempty"`
	// TemplateDrift is what a chat rollout (Engine.Chat) does at a tool or
	// user turn after which the template renders the conversation other
	// than the ids the trajectory holds (a template that is not
	// append-only, as Qwen3's drops earlier <think> blocks): "split"
	// (default) closes the trajectory's current sequence there and goes on
	// in a new one whose prompt is the template's rendering of the
	// conversation so far (Trajectory.Splits); "fail" stops the rollout
	// with an error naming the template and the turn. The plain format
	// never drifts.
	TemplateDrift string `yaml:"template_drift"`
}

// Weight-sync modes (Config.WeightSync).
const (
	SyncSGLang     = "sglang"
	SyncVLLMReload = "vllm-reload"
)

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		GroupSize:         8,
		MaxResponseTokens: 96,
		MaxToolCalls:      2,
		MaxResultTokens:   24,
		Temperature:       1.0,
		TopP:              1.0,
		ToolTimeout:       2 * time.Second,
		WeightSync:        SyncSGLang,
		Batching:          BatchContinuous,
		TemplateDrift:     DriftSplit,
	}
}

// The values of Config.TemplateDrift.
const (
	DriftSplit = "split"
	DriftFail  = "fail"
)

// BatchContinuous is the value of Config.Batching.
const BatchContinuous = "continuous"

// minResultTokens leaves room for a head, a truncation mark and a tail.
const minResultTokens = 4

// Validate reports every out-of-range key, each with the fix.
func (c Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("rollout: "+format, args...))
	}
	if c.GroupSize < 1 {
		add("group_size must be at least 1 (got %d); training needs 2 or more for group-relative advantages", c.GroupSize)
	}
	if c.MaxResponseTokens < 1 {
		add("max_response_tokens must be positive (got %d): set the sampled-token budget, e.g. 96", c.MaxResponseTokens)
	}
	if c.MaxToolCalls < 0 {
		add("max_tool_calls must be 0 or more (got %d): 0 disables the tool", c.MaxToolCalls)
	}
	if c.MaxResultTokens < minResultTokens {
		add("max_result_tokens must be at least %d to keep a cut result's head, mark and tail (got %d)", minResultTokens, c.MaxResultTokens)
	}
	if !(c.Temperature >= 0) || math.IsInf(c.Temperature, 1) {
		add("temperature must be 0 (greedy) or a positive number (got %g)", c.Temperature)
	}
	if !(c.TopP > 0 && c.TopP <= 1) {
		add("top_p must be in (0, 1] (got %g): 1 disables nucleus sampling", c.TopP)
	}
	if c.ToolTimeout <= 0 {
		add("tool_timeout must be positive (got %v): write a duration such as \"2s\"", c.ToolTimeout)
	}
	for _, u := range c.Servers {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			add("servers: %q is not a server address: write http://host:port, e.g. -set rollout.servers=[http://127.0.0.1:8080]", u)
		}
	}
	switch c.Batching {
	case "", BatchContinuous: // "": a Config not from DefaultConfig
	case "lockstep":
		add("batching lockstep was removed: the rollouts decode on the continuous batcher, which samples the same trajectories bit for bit; delete the key or set %s", BatchContinuous)
	default:
		add("batching %q is unknown: use %s (the default and only value)", c.Batching, BatchContinuous)
	}
	switch c.TemplateDrift {
	case "", DriftSplit, DriftFail: // "": a Config not from DefaultConfig, which splits
	default:
		add("template_drift %q is unknown: use %s (the default: a turn the chat template renders otherwise starts a new training sequence) or %s (stop the rollout with an error)", c.TemplateDrift, DriftSplit, DriftFail)
	}
	switch c.WeightSync {
	case "", SyncSGLang: // "": a Config not from DefaultConfig
		if c.VLLMModelDir != "" {
			add("vllm_model_dir is set but weight_sync is %q: set weight_sync: %s to push weights to vLLM through that folder, or remove vllm_model_dir", c.WeightSync, SyncVLLMReload)
		}
	case SyncVLLMReload:
		if c.VLLMModelDir == "" {
			add("weight_sync: %s needs vllm_model_dir, the folder every vLLM server was started on (vllm serve DIR): set rollout.vllm_model_dir: DIR", SyncVLLMReload)
		}
	default:
		add("weight_sync %q is unknown: use %s (artist serve, SGLang) or %s (vLLM)", c.WeightSync, SyncSGLang, SyncVLLMReload)
	}
	return errors.Join(errs...)
}
