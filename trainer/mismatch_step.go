package trainer

import (
	"fmt"
	"io"
)

// correctRollouts measures the mismatch between the sampler's log-probs
// and the trainer's on the loss tokens of the kept trajectories, records
// it under mismatch/ (MismatchStats.Metrics) in m, with
// rollout/logprob_diff/mean for rollouts sampled on servers, and applies
// grpo.rollout_correction to b when it is on.
//
// behav holds the sampling-time log-probs (lossSeqs), indexed as b.trajs.
// The trainer's log-probs are those of the weights about to be updated,
// at the rollouts' temperature: b.first when stale is true (proximal
// recomputed them), otherwise a forward pass here. With the correction
// off, b is left as it is, so the update is the one without metrics;
// with it on, the ratio's old log-probs and the first mini-batch's
// current ones become the trainer's (verl's recomputed old_log_prob), the
// loss mask becomes the mask after rejection, and the importance weights
// of rollout_correction.is replace b.isw. A batch with no kept trajectory
// records nothing.
func (r *Run) correctRollouts(b *updateBatch, keep []int, behav [][]float32, stale bool, m Metrics) error {
	if len(keep) == 0 {
		return nil
	}
	cfg := r.Cfg.GRPO.RolloutCorrection
	b.diff = !stale && r.servers != nil // proximal records it for stale rollouts
	if !stale && !cfg.Enabled() && r.measuresFirst() {
		b.measure = behav // measured from the first mini-batch's forward pass
		return nil
	}
	train := b.first
	if !stale {
		lp, err := r.red.logProbs(r.Model, pick(b.trajs, keep), pick(b.seqs, keep))
		if err != nil {
			return fmt.Errorf("mismatch: trainer log-probs: %w", err)
		}
		train = make([][]float32, len(b.trajs))
		for j, i := range keep {
			train[i] = lp[j]
		}
	}
	in := MismatchInput{Train: pick(train, keep), Sampler: pick(behav, keep), Mask: pick(b.mask, keep)}
	if err := checkMismatchRows(in); err != nil {
		return err
	}
	c := CorrectRollouts(cfg, in)
	for k, v := range c.Stats.Metrics() {
		m[k] = v
	}
	if b.diff {
		m["rollout/logprob_diff/mean"] = logprobDiffOf(pick(b.trajs, keep), in.Train)
	}
	if !cfg.Enabled() {
		return nil
	}
	b.old, b.first = train, train
	mask := make([][]uint8, len(b.trajs))
	for j, i := range keep {
		mask[i] = c.Mask[j]
	}
	b.mask = mask
	if c.Weights != nil {
		b.isw = make([][]float32, len(b.trajs))
		for j, i := range keep {
			b.isw[i] = toFloat32(c.Weights[j])
		}
	}
	return nil
}

// measuresFirst reports whether the first mini-batch's forward pass sees
// every kept trajectory under the weights that sampled, so the mismatch
// can be measured from its log-probs at no extra cost: one process (no
// ranks to gather from) and one mini-batch.
func (r *Run) measuresFirst() bool {
	_, one := r.red.(solo)
	return one && r.Cfg.GRPO.MiniBatches == 1
}

// measureFirst returns the mismatch/ metrics of the trajectories idx of b
// (the first mini-batch, every kept trajectory) from logp, the log-probs
// the mini-batch's forward pass computed under the weights that sampled
// (indexed as idx), against the sampler's in b.measure, with
// rollout/logprob_diff/mean when b.diff is set.
func measureFirst(b *updateBatch, idx []int, logp [][]float32) (Metrics, error) {
	if len(logp) != len(idx) {
		return nil, fmt.Errorf("mismatch: %d log-prob rows for %d trajectories", len(logp), len(idx))
	}
	in := MismatchInput{Train: logp, Sampler: pick(b.measure, idx), Mask: pick(b.mask, idx)}
	if err := checkMismatchRows(in); err != nil {
		return nil, err
	}
	m := Mismatch(in, nil, nil).Metrics()
	if b.diff {
		m["rollout/logprob_diff/mean"] = logprobDiffOf(pick(b.trajs, idx), logp)
	}
	return m, nil
}

// checkMismatchRows returns an error unless every row of in has as many
// trainer and sampler log-probs as mask values (CorrectRollouts panics on
// rows that do not line up).
func checkMismatchRows(in MismatchInput) error {
	for j, mask := range in.Mask {
		if len(in.Train[j]) != len(mask) || len(in.Sampler[j]) != len(mask) {
			return fmt.Errorf("mismatch: trajectory %d has %d tokens, %d trainer and %d sampler log-probs", j, len(mask), len(in.Train[j]), len(in.Sampler[j]))
		}
	}
	return nil
}

func toFloat32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// DefaultKLJump is grpo.rollout_correction.kl_jump by default: a rise of
// mismatch/kl_k3 by more than this from one step to the next is reported.
const DefaultKLJump = 1e-3

// klWatch follows mismatch/kl_k3 from step to step for the jump warning
// of grpo.rollout_correction.kl_jump: base is the last level before a
// reported jump (or the last step's KL), alarmed whether a jump was
// reported and the KL has not come back within kl_jump of base.
type klWatch struct {
	base, staleness float64
	seen, alarmed   bool
}

// note reads the step's mismatch/kl_k3 (and rollout/staleness/mean) from
// m and writes one line to out when it rose by more than jump over the
// last step that measured it at the same staleness. After a report it
// stays quiet while the KL stays high (a sampler stuck on old weights
// drifts further from the trainer's every step) and speaks again only
// after the KL has come back within jump of its level before the report.
// A step without the metric changes nothing; a change of staleness sets
// a new level silently; jump 0 never writes.
func (w *klWatch) note(out io.Writer, step int, m Metrics, jump float64) {
	kl, ok := m["mismatch/kl_k3"]
	if !ok || jump <= 0 {
		return
	}
	st := m["rollout/staleness/mean"]
	switch {
	case !w.seen || st != w.staleness:
		w.base, w.staleness, w.seen, w.alarmed = kl, st, true, false
	case w.alarmed:
		if kl-w.base <= jump {
			w.base, w.alarmed = kl, false
		}
	case kl-w.base > jump:
		fmt.Fprintf(out, "trainer: step %d: mismatch/kl_k3 jumped from %.3g to %.3g (more than grpo.rollout_correction.kl_jump %g): the sampler's log-probs no longer match the trainer's weights, the sign of a weight-sync failure\n",
			step, w.base, kl, jump)
		w.alarmed = true
	default:
		w.base = kl
	}
}
