package trainer

import "fmt"

// The clip range of grpo.eps_low and grpo.eps_high by default (DAPO's
// clip-higher).
const (
	defaultEpsLow  = 0.2
	defaultEpsHigh = 0.28
)

// clipRange is the clip range the loss uses: gspo_eps_low and
// gspo_eps_high when grpo.loss is gspo (PPO's range would clip nothing
// that GSPO's per-token geometric mean reaches), else eps_low and
// eps_high.
func (g GRPOConfig) clipRange() (lo, hi float64) {
	if g.Loss == LossGSPO {
		return g.GSPOEpsLow, g.GSPOEpsHigh
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
	if err := g.validateGSPOClip(); err != nil {
		return err
	}
	if err := g.RolloutCorrection.Validate(); err != nil {
		return err
	}
	return g.validateCorrection()
}

// validateCorrection refuses rollout_correction.is beside the truncated
// importance weights of max_staleness (tis_cap): both weigh each token by
// the same ratio of the trainer's log-probs to the sampler's, and the two
// would multiply.
func (g GRPOConfig) validateCorrection() error {
	if g.RolloutCorrection.IS != "" && g.MaxStaleness > 0 && g.TISCap > 0 {
		return fmt.Errorf("config: grpo.rollout_correction.is %s and grpo.tis_cap %v (max_staleness %d) both weigh tokens by the trainer-to-sampler ratio: set grpo.tis_cap: 0 or remove rollout_correction.is",
			g.RolloutCorrection.IS, g.TISCap, g.MaxStaleness)
	}
	return nil
}

// validateGSPOClip checks GSPO's clip range, and refuses eps_low or
// eps_high set away from their defaults beside loss gspo, which reads
// gspo_eps_low and gspo_eps_high instead.
func (g GRPOConfig) validateGSPOClip() error {
	if !(g.GSPOEpsLow > 0 && g.GSPOEpsLow < 1) || !(g.GSPOEpsHigh > 0) {
		return fmt.Errorf("config: grpo.gspo_eps_low must be in (0, 1) and grpo.gspo_eps_high > 0 (got %g, %g; GSPO's are %g, %g)",
			g.GSPOEpsLow, g.GSPOEpsHigh, GSPOEpsLow, GSPOEpsHigh)
	}
	if g.Loss == LossGSPO && (g.EpsLow != defaultEpsLow || g.EpsHigh != defaultEpsHigh) {
		return fmt.Errorf("config: grpo.loss: gspo clips with grpo.gspo_eps_low and grpo.gspo_eps_high, not grpo.eps_low/eps_high (%g, %g): set those keys instead",
			g.EpsLow, g.EpsHigh)
	}
	return nil
}
