package trainer

import (
	"fmt"
	"strings"
)

// The clip range of grpo.eps_low and grpo.eps_high by default (DAPO's
// clip-higher).
const (
	defaultEpsLow  = 0.2
	defaultEpsHigh = 0.28
)

// clipRange is the clip range the loss uses: GSPO's own when grpo.loss is
// gspo and both bounds are left at their defaults, which are PPO's and
// would clip nothing that GSPO's per-token geometric mean reaches.
func (g GRPOConfig) clipRange() (lo, hi float64) {
	if g.Loss == LossGSPO && g.EpsLow == defaultEpsLow && g.EpsHigh == defaultEpsHigh {
		return GSPOEpsLow, GSPOEpsHigh
	}
	return g.EpsLow, g.EpsHigh
}

// validateObjective checks grpo.advantage, grpo.loss, the loss's
// combination with the other grpo keys, and grpo.rollout_correction.
func (g GRPOConfig) validateObjective() error {
	if _, err := lookupAdvantage(g.Advantage); err != nil {
		return fmt.Errorf("config: grpo.advantage: %w", err)
	}
	if _, err := LossByName(g.Loss); err != nil {
		return fmt.Errorf("config: grpo.loss: %w", err)
	}
	if (g.Loss == LossGSPO || g.Loss == LossCISPO) && g.ClipRatioC != 0 {
		return fmt.Errorf("config: grpo.loss: %s does not use grpo.clip_ratio_c (dual clip); remove it", g.Loss)
	}
	if err := g.RolloutCorrection.Validate(); err != nil {
		return err
	}
	return g.validateUnwired()
}

// validateUnwired refuses the objectives whose inputs the training step
// does not pass yet: per-rollout reward components (gdpo) and the
// sampler's log-probs beside the trainer's (rollout_correction).
func (g GRPOConfig) validateUnwired() error {
	if NeedsComponents(g.Advantage) {
		return fmt.Errorf("config: grpo.advantage: %s normalises each reward component, but the training step passes estimators only the total reward so far: use %s",
			g.Advantage, strings.Join([]string{"grpo", "drgrpo", "rloo", "reinforce_pp", "reinforce_pp_baseline"}, ", "))
	}
	if g.RolloutCorrection.Enabled() {
		return fmt.Errorf("config: grpo.rollout_correction: the training step does not apply it yet (it needs the sampler's log-probs beside the trainer's); remove it")
	}
	return nil
}
