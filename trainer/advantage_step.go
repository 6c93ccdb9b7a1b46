package trainer

import (
	"fmt"

	"github.com/artist-rl/artist/rollout"
)

// advantageInput returns the rollouts of b that train and the
// estimator's view of them: their total rewards, G, grpo.adv_eps, each
// one's loss-token count (lossTokens) and, when grpo.advantage needs them,
// their reward components with the composite's weights
// (RewardComponents). It is an error when the estimator needs components
// and the batch lacks them.
func (r *Run) advantageInput(b *stepBatch) ([]*rollout.Trajectory, AdvantageInput, error) {
	g := r.Cfg.GRPO
	train, rewards := b.training()
	in := AdvantageInput{Rewards: rewards, GroupSize: r.Cfg.Rollout.GroupSize, Eps: g.AdvEps, Tokens: r.lossTokens(train)}
	if !NeedsComponents(g.Advantage) {
		return train, in, nil
	}
	parts, err := b.trainingParts()
	if err != nil {
		return nil, AdvantageInput{}, err
	}
	in.Components, in.Weights = RewardComponents(parts, r.rewardWeights())
	if len(in.Components) == 0 {
		return nil, AdvantageInput{}, fmt.Errorf("the reward has no components to normalise")
	}
	return train, in, nil
}

// rewardWeights maps each component of the run's reward to its weight.
func (r *Run) rewardWeights() map[string]float64 {
	w := make(map[string]float64, len(r.Reward))
	for _, c := range r.Reward {
		w[c.Name] = c.Weight
	}
	return w
}

// lossTokens counts, for each of trajs, the tokens the update's loss
// reads (AdvantageInput.Tokens): 0 for a rollout cut by the length budget
// when grpo.mask_truncated is on; otherwise its mask-1 tokens, and its
// tool-result tokens too when grpo.mask_tool_output is off (lossSeqs),
// over all its sequences when the chat template split it.
func (r *Run) lossTokens(trajs []*rollout.Trajectory) []int {
	g := r.Cfg.GRPO
	n := make([]int, len(trajs))
	for i, t := range trajs {
		if g.MaskTruncated && t.Stop == rollout.StopLength {
			continue
		}
		for _, s := range t.Sequences() { // every sequence of a split trajectory trains
			for k, m := range s.Mask {
				if m != 0 || (!g.MaskToolOutput && k < len(s.Kinds) && s.Kinds[k] == rollout.KindToolResult) {
					n[i]++
				}
			}
		}
	}
	return n
}
