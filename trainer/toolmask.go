package trainer

import "github.com/artist-rl/artist/rollout"

// lossSeqs returns, for each kept trajectory (indexed as trajs), the
// log-probs at sampling time and the loss mask that the GRPO update uses.
//
// With grpo.mask_tool_output true (the default, as the paper does) they
// are the trajectory's own: tool-result tokens have mask 0 and never enter
// the loss. With it false (the ablation the paper warns against) every
// token after the prompt has mask 1, tool results included; sampling does
// not record log-probs of tokens the policy did not write, so theirs are
// computed here under the weights that sampled (no update of the step has
// run yet). The trajectories themselves are not changed: their mask still
// tells model tokens from tool output everywhere else.
func (r *Run) lossSeqs(trajs []*rollout.Trajectory, keep []int) (logp [][]float32, mask [][]uint8) {
	logp, mask = make([][]float32, len(trajs)), make([][]uint8, len(trajs))
	for _, i := range keep {
		logp[i], mask[i] = trajs[i].LogProbs, trajs[i].Mask
	}
	if r.Cfg.GRPO.MaskToolOutput || len(keep) == 0 {
		return logp, mask
	}
	seqs := make([][]int, len(keep))
	for j, i := range keep {
		seqs[j] = trajs[i].Tokens
	}
	cur := r.Model.LogProbs(seqs)
	for j, i := range keep {
		logp[i], mask[i] = unmaskToolOutput(trajs[i], cur[j])
	}
	return logp, mask
}

// unmaskToolOutput returns t's log-probs and loss mask with the tool
// output put in the loss: every response token has mask 1, and a token
// the policy did not sample takes its log-prob from cur (the policy's
// log-probs of t.Tokens). Prompt tokens keep mask 0.
func unmaskToolOutput(t *rollout.Trajectory, cur []float32) ([]float32, []uint8) {
	logp := append([]float32(nil), t.LogProbs...)
	mask := make([]uint8, len(t.Mask))
	for k := t.PromptLen; k < len(t.Mask); k++ {
		if t.Mask[k] == 0 {
			logp[k] = cur[k]
		}
		mask[k] = 1
	}
	return logp, mask
}
