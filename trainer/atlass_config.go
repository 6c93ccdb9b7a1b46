package trainer

import (
	"fmt"
	"math"

	"github.com/artist-rl/artist/envs/family"
)

// AtlassConfig runs the ATLASS phases (package atlass) inside GRPO
// rollouts, so that the policy grows its own tools under RL. For each
// task of a step the policy itself plays the task analyzer, tool master,
// tool selector (over the run's working copy of tool.library.path) and
// tool generator (each function verified in the sandbox, failures fed
// back); then the group of rollout.group_size trajectories solves the task
// on the rollout engine with the approved selected and generated tools
// defined before its snippets and listed in its prompt, and GRPO trains on
// those trajectories as on any other rollouts. Generated tools are stored
// pending, and the solver does not get them, unless
// tool.library.auto_approve is set. A task whose phases fail is solved
// without tools and counted (atlass/phase_failed).
//
// The warm start teaches the phases: when the task family knows their
// correct replies (family.PhaseTeacher), a WarmFraction share of the
// warm-start sequences are phase conversations, rendered and truncated
// as the rollouts render them, with the loss on the reply only. Inside
// GRPO the phase replies are not trained on: only the solver's
// trajectories carry advantages. Evaluation is unchanged: held-out tasks retrieve the
// approved tools of the library (tool.library.k), the grown ones included.
// The library's retrieval and harvesting (k, grow) do not apply to the
// solver's rollouts of a step: their tools are those the phases provided.
type AtlassConfig struct {
	// Enabled runs the phases in every GRPO step. It needs
	// tool.kind: sandbox, tool.library.path and tool.library.grow: true
	// (generated tools go to the run's working copy, saved as tools.db),
	// and does not combine with grpo.dynamic_sampling. Default false.
	Enabled bool `yaml:"enabled"`
	// Retries is how many times a JSON phase (analyzer, tool master,
	// selector) is asked again after a refused reply, the refusal fed
	// back. Default 2; 0 never asks again.
	Retries int `yaml:"retries"`
	// MaxAttempts bounds the functions the generator writes per missing
	// tool. Default 3; must be >= 1.
	MaxAttempts int `yaml:"max_attempts"`
	// MaxReplyTokens bounds each phase reply of the policy. A conversation
	// longer than the model's context less this keeps only its last
	// tokens. Default 128; must be >= 1 and below
	// model.max_position_embeddings.
	MaxReplyTokens int `yaml:"max_reply_tokens"`
	// Temperature samples the phase replies (top-p 1); 0 is greedy.
	// Default 1.
	Temperature float64 `yaml:"temperature"`
	// Transcripts is how many tasks of each step have the transcript of
	// their phases saved, as atlass/step-NNNNNN/task-II.json in the run
	// folder. Default 2; 0 saves none.
	Transcripts int `yaml:"transcripts"`
	// WarmFraction is the share of warm-start sequences that are phase
	// demonstrations (one draw per sequence) rather than solutions: the
	// analyzer, tool master, selector and generator conversations of
	// warmstart.demos training tasks, each reply written from the task's
	// ground truth (family.PhaseTeacher) against the run's tool database
	// and saved in phase_demos.jsonl. It needs a family that implements
	// family.PhaseTeacher; 0 teaches no phase. Default 0.5; must be in
	// [0, 1).
	WarmFraction float64 `yaml:"warm_fraction"`
}

// DefaultAtlassConfig is the documented default: off.
func DefaultAtlassConfig() AtlassConfig {
	return AtlassConfig{Retries: 2, MaxAttempts: 3, MaxReplyTokens: 128, Temperature: 1, Transcripts: 2, WarmFraction: 0.5}
}

// validateAtlass checks tool.library.atlass against the rest of the run.
func (c *Config) validateAtlass() error {
	a, l := c.Tool.Library.Atlass, c.Tool.Library
	const key = "config: tool.library.atlass"
	switch {
	case a.Retries < 0:
		return fmt.Errorf("%s.retries must be >= 0 (0 never asks again), got %d", key, a.Retries)
	case a.MaxAttempts < 1:
		return fmt.Errorf("%s.max_attempts must be >= 1 function per generated tool, got %d", key, a.MaxAttempts)
	case a.MaxReplyTokens < 1:
		return fmt.Errorf("%s.max_reply_tokens must be >= 1, got %d", key, a.MaxReplyTokens)
	case c.Init == "" && a.MaxReplyTokens >= c.Model.MaxPositionEmbeddings:
		return fmt.Errorf("%s.max_reply_tokens %d leaves no room for the conversation in model.max_position_embeddings %d: lower it", key, a.MaxReplyTokens, c.Model.MaxPositionEmbeddings)
	case !(a.Temperature >= 0) || math.IsInf(a.Temperature, 1):
		return fmt.Errorf("%s.temperature must be a finite value >= 0 (0 is greedy), got %v", key, a.Temperature)
	case a.Transcripts < 0:
		return fmt.Errorf("%s.transcripts must be >= 0 (0 saves none), got %d", key, a.Transcripts)
	case !(a.WarmFraction >= 0 && a.WarmFraction < 1):
		return fmt.Errorf("%s.warm_fraction must be in [0, 1) (0 teaches no phase), got %v", key, a.WarmFraction)
	case !a.Enabled:
		return nil
	case c.Tool.Kind != family.SandboxTool:
		return fmt.Errorf("%s verifies generated tools in the sandbox, but tool.kind is %s: use tool.kind: sandbox or set atlass.enabled: false", key, c.Tool.Kind)
	case l.Path == "":
		return fmt.Errorf("%s selects from a tool database, but tool.library.path is empty: build one with artist tools add or artist tools import and set its path", key)
	case !l.Grow:
		return fmt.Errorf("%s stores generated tools in the run's working copy of the database (tools.db), which tool.library.grow keeps: set tool.library.grow: true", key)
	case c.GRPO.DynamicSampling.Enabled:
		return fmt.Errorf("%s runs the phases once per task of a step and does not combine with grpo.dynamic_sampling: set one of them to false", key)
	}
	return nil
}
