package trainer

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/pysandbox"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Validation of a Config: each key's range, and the combinations that
// cannot run, named with the fix.

// Validate names the first key whose value cannot run and says what is
// allowed.
func (c *Config) Validate() error {
	if c.RunDir == "" {
		return fmt.Errorf("config: run_dir is empty: give a folder for the run's outputs")
	}
	if c.TokenizerMerges < 0 {
		return fmt.Errorf("config: tokenizer_merges must be >= 0 (0 keeps one token per byte), got %d", c.TokenizerMerges)
	}
	if err := c.Model.validateBaseDType(); err != nil {
		return err
	}
	if err := c.Model.LoRA.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if c.Model.Recompute && c.Model.LoRA.Enabled() && c.Model.LoRA.Dropout > 0 {
		return fmt.Errorf("config: model.recompute takes adapters without dropout, but model.lora.dropout is %g: set it to 0 or turn model.recompute off", c.Model.LoRA.Dropout)
	}
	if !slices.Contains(referenceDTypes, c.Model.ReferenceDType) {
		return fmt.Errorf("config: model.reference_dtype %q is unknown: use %s", c.Model.ReferenceDType, strings.Join(referenceDTypes, " or "))
	}
	if !slices.Contains(backend.ComputeDTypes, c.Model.ComputeDType) {
		return fmt.Errorf("config: model.compute_dtype %q is unknown: use %s", c.Model.ComputeDType, strings.Join(backend.ComputeDTypes, " or "))
	}
	if c.Init == "" {
		m := c.Model.Config
		if m.VocabSize == 0 {
			m.VocabSize = 1 // filled from the tokenizer
		}
		if err := m.Validate(); err != nil {
			return fmt.Errorf("config: model: %w", err)
		}
	}
	if err := c.Format.Validate(); err != nil {
		return fmt.Errorf("config: format: %w", err)
	}
	if c.Prompt.Template != "plain" && c.Prompt.Template != "chat" {
		return fmt.Errorf("config: prompt.template %q is unknown: use plain or chat", c.Prompt.Template)
	}
	if err := c.Prompt.Demos.validate(); err != nil {
		return err
	}
	fam, err := c.Task.validate(c.WarmStart.Steps)
	if err != nil {
		return err
	}
	if err := c.validateTool(fam); err != nil {
		return err
	}
	if err := c.Rollout.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if c.Rollout.WeightSync == rollout.SyncVLLMReload && len(c.Rollout.Servers) == 0 {
		return fmt.Errorf("config: rollout.weight_sync: %s has no server to reload: set rollout.servers to the vLLM servers' addresses, or remove weight_sync", rollout.SyncVLLMReload)
	}
	if c.GRPO.Steps > 0 && c.Rollout.GroupSize < 2 {
		return fmt.Errorf("config: rollout.group_size must be at least 2 for group-relative advantages, got %d", c.Rollout.GroupSize)
	}
	if err := c.validateWeights(fam); err != nil {
		return err
	}
	if err := c.WarmStart.validate(); err != nil {
		return err
	}
	if err := c.WarmStart.validateLibrary(); err != nil {
		return err
	}
	if err := c.GRPO.validate(c.Rollout.MaxResponseTokens); err != nil {
		return err
	}
	if err := c.validateStaleness(); err != nil {
		return err
	}
	if err := c.WarmStart.adam().validate("warmstart"); err != nil {
		return err
	}
	if err := c.GRPO.adam().validate("grpo"); err != nil {
		return err
	}
	return c.validateEvalCheckpoint()
}

// validateTool checks the tool against the task family: "disabled",
// or one of the family's tool kinds.
func (c *Config) validateTool(fam family.Family) error {
	kinds := fam.ToolKinds()
	if c.Format.ART() && !slices.Contains(kinds, family.SandboxTool) {
		return fmt.Errorf("config: format.style art writes code lines for the sandbox, but task %s calls functions (tool.kind %s) in tags: use format.style tags", fam.Name(), kinds[0])
	}
	if slices.Contains(kinds, family.SandboxTool) {
		kinds = append(slices.Clone(kinds), family.PythonTool)
	}
	switch kind := c.Tool.Kind; {
	case kind == "disabled":
	case slices.Contains(kinds, kind):
		if kind == family.SandboxTool || kind == family.PythonTool {
			if err := c.Tool.Sandbox.Validate(); err != nil {
				return fmt.Errorf("config: tool.sandbox: %w", err)
			}
		}
		if kind == family.PythonTool {
			if err := (pysandbox.Config{Limits: c.Tool.Sandbox, Runtime: c.Tool.Python}).Validate(); err != nil {
				return fmt.Errorf("config: tool.python: %w", err)
			}
		}
	case slices.Contains(toolKinds(), kind):
		return fmt.Errorf("config: tool.kind %s does not run the calls of task %s: set tool.kind: %s", kind, fam.Name(), kinds[0])
	default:
		all := toolKinds()
		return fmt.Errorf("config: tool.kind %q is unknown: use %s or disabled", kind, strings.Join(all, ", "))
	}
	if l := c.Tool.Library; l.Path != "" && c.Tool.Kind != family.SandboxTool {
		return fmt.Errorf("config: tool.library holds Go functions for the sandbox, but tool.kind is %s: clear tool.library.path or use tool.kind: sandbox", c.Tool.Kind)
	}
	if l := c.Tool.Library; l.AutoApprove && !l.Grow {
		return fmt.Errorf("config: tool.library.auto_approve approves grown tools, but tool.library.grow is false: set grow: true or drop auto_approve")
	}
	if c.Tool.Library.K < 0 {
		return fmt.Errorf("config: tool.library.k must be >= 0, got %d", c.Tool.Library.K)
	}
	return c.validateAtlass()
}

// toolKinds lists sandbox and then the other tool kinds of the registered
// families, in registration order.
func toolKinds() []string {
	out := []string{family.SandboxTool, family.PythonTool}
	for _, f := range family.All() {
		for _, k := range f.ToolKinds() {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// validateWeights checks the reward components against the task family.
func (c *Config) validateWeights(fam family.Family) error {
	if err := reward.CheckWeights(c.Reward.Weights, rewardEnv(c.Format, fam, nil)); err != nil {
		return fmt.Errorf("config: reward.weights: %w", err)
	}
	return nil
}

// rewardEnv is what the reward components of a family are built from.
func rewardEnv(f format.Format, fam family.Family, supplies []any) reward.Env {
	return reward.Env{Format: f, Supplies: supplies, Components: fam.Rewards()}
}

func (w WarmStartConfig) validate() error {
	switch {
	case w.Steps < 0:
		return fmt.Errorf("config: warmstart.steps must be >= 0 (0 skips the warm start), got %d", w.Steps)
	case w.Steps > 0 && w.BatchSize < 1:
		return fmt.Errorf("config: warmstart.batch_size must be >= 1, got %d", w.BatchSize)
	case w.Steps > 0 && !(w.LR > 0):
		return fmt.Errorf("config: warmstart.lr must be > 0, got %v", w.LR)
	case w.Steps > 0 && w.Demos < 1:
		return fmt.Errorf("config: warmstart.demos must be >= 1, got %d", w.Demos)
	case w.ToolFraction < 0 || w.ToolFraction > 1 || math.IsNaN(w.ToolFraction):
		return fmt.Errorf("config: warmstart.tool_fraction must be in [0, 1], got %v", w.ToolFraction)
	case w.MicroBatch < 0:
		return fmt.Errorf("config: warmstart.micro_batch must be >= 0 (0 runs the whole batch at once), got %d", w.MicroBatch)
	}
	return nil
}

func (g GRPOConfig) validate(maxResponseTokens int) error {
	switch {
	case g.Steps < 0:
		return fmt.Errorf("config: grpo.steps must be >= 0, got %d", g.Steps)
	case g.BatchSize < 1:
		return fmt.Errorf("config: grpo.batch_size must be >= 1 prompt per step, got %d", g.BatchSize)
	case g.Epochs < 1:
		return fmt.Errorf("config: grpo.epochs (mu) must be >= 1, got %d", g.Epochs)
	case g.MiniBatches < 1:
		return fmt.Errorf("config: grpo.mini_batches must be >= 1, got %d", g.MiniBatches)
	case !(g.LR > 0):
		return fmt.Errorf("config: grpo.lr must be > 0, got %v", g.LR)
	case !(g.AdvEps > 0) || math.IsInf(g.AdvEps, 0):
		return fmt.Errorf("config: grpo.adv_eps must be a finite value > 0 (default 1e-6), got %v", g.AdvEps)
	case g.WarmupSteps < 0:
		return fmt.Errorf("config: grpo.warmup_steps must be >= 0, got %d", g.WarmupSteps)
	case g.WeightDecay < 0:
		return fmt.Errorf("config: grpo.weight_decay must be >= 0, got %v", g.WeightDecay)
	case g.MaxGradNorm < 0:
		return fmt.Errorf("config: grpo.max_grad_norm must be >= 0 (0 disables clipping), got %v", g.MaxGradNorm)
	case g.MicroBatch < 0:
		return fmt.Errorf("config: grpo.micro_batch must be >= 0 (0 runs each mini-batch at once), got %d", g.MicroBatch)
	}
	if err := g.validateObjective(); err != nil {
		return err
	}
	lc := g.lossConfig(1)
	if err := lc.Validate(); err != nil {
		return fmt.Errorf("config: grpo: %w", err)
	}
	return g.validateVariants(maxResponseTokens)
}

func (g GRPOConfig) lossConfig(maxTokens int) LossConfig {
	lo, hi := g.clipRange()
	return LossConfig{EpsLow: lo, EpsHigh: hi, Beta: g.Beta, Agg: g.Agg, MaxTokens: maxTokens,
		ClipRatioC: g.ClipRatioC, KLClamp: g.KLClamp, EmptySeqs: g.EmptySeqs, Loss: g.Loss}
}

func (c *Config) validateEvalCheckpoint() error {
	e, k := c.Eval, c.Checkpoint
	switch {
	case e.Every < 0:
		return fmt.Errorf("config: eval.every must be >= 0 (0 evaluates only before and after GRPO), got %d", e.Every)
	case e.Size < 0:
		return fmt.Errorf("config: eval.size must be >= 0 (0 means the whole held-out split), got %d", e.Size)
	case e.Samples < 1:
		return fmt.Errorf("config: eval.samples must be >= 1, got %d", e.Samples)
	case e.Temperature < 0:
		return fmt.Errorf("config: eval.temperature must be >= 0 (0 is greedy), got %v", e.Temperature)
	case e.SaveSamples < 0:
		return fmt.Errorf("config: eval.save_samples must be >= 0, got %d", e.SaveSamples)
	case k.Every < 0:
		return fmt.Errorf("config: checkpoint.every must be >= 0, got %d", k.Every)
	case k.WarmStartEvery < 0:
		return fmt.Errorf("config: checkpoint.warmstart_every must be >= 0 (0 writes no warm-start checkpoints), got %d", k.WarmStartEvery)
	case k.Keep < 1:
		return fmt.Errorf("config: checkpoint.keep must be >= 1, got %d", k.Keep)
	}
	return nil
}
