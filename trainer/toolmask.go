package trainer

import "github.com/artist-rl/artist/rollout"

// lossSeqs returns, for each kept trajectory (indexed as trajs), the
// log-probs at sampling time and the loss mask that the GRPO update uses.
//
// With grpo.mask_tool_output true (the default, as the paper does) they
// are the trajectory's own: only the tokens the policy sampled have mask
// 1. With it false (the ablation the paper warns against) the tool-result
// tokens (rollout.KindToolResult) have mask 1 too, and nothing else does:
// prompt and later user turns stay out. Sampling does not record
// log-probs of tokens the policy did not write, so theirs are computed
// here under the weights that sampled (no update of the step has run yet).
// The trajectories themselves are not changed.
func (r *Run) lossSeqs(trajs []*rollout.Trajectory, keep []int) (logp [][]float32, mask [][]uint8, err error) {
	logp, mask = make([][]float32, len(trajs)), make([][]uint8, len(trajs))
	for _, i := range keep {
		logp[i], mask[i] = trajs[i].LogProbs, trajs[i].Mask
	}
	if r.Cfg.GRPO.MaskToolOutput || len(keep) == 0 {
		return logp, mask, nil
	}
	seqs := make([][]int, len(keep))
	for j, i := range keep {
		seqs[j] = trajs[i].Tokens
	}
	cur, err := r.Model.LogProbs(seqs)
	if err != nil {
		return nil, nil, err
	}
	for j, i := range keep {
		logp[i], mask[i] = unmaskToolOutput(trajs[i], cur[j])
	}
	return logp, mask, nil
}

// unmaskToolOutput returns t's log-probs and loss mask with the tool
// results put in the loss: their tokens get mask 1 and their log-probs
// from cur (the policy's log-probs of t.Tokens). Every other token keeps
// its mask and log-prob.
func unmaskToolOutput(t *rollout.Trajectory, cur []float32) ([]float32, []uint8) {
	logp := append([]float32(nil), t.LogProbs...)
	mask := append([]uint8(nil), t.Mask...)
	for k, kind := range t.Kinds {
		if kind == rollout.KindToolResult {
			logp[k], mask[k] = cur[k], 1
		}
	}
	return logp, mask
}
