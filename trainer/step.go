package trainer

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/artist-rl/artist/internal/sysmem"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// grpoStep is one step of the data flow in docs/ARCHITECTURE.md: the
// step's sampled, rolled-out and scored groups from src, group
// advantages, the update, and the new weights handed back to src. It
// reads the same for one process and N ranks: the reducer splits the
// rollouts and the backward passes, and opt sums the gradients.
func (r *Run) grpoStep(ctx context.Context, step int, src batchSource, opt optimizer, ref *policy.Model) (stepOutput, error) {
	m := Metrics{}
	start := time.Now()
	b, rng, err := src.batch(ctx, step, m)
	if err != nil {
		return stepOutput{}, err
	}
	putBatchRewards(m, b)

	t0 := time.Now()
	train, adv, err := r.advantages(b, m)
	if err != nil {
		return stepOutput{}, err
	}
	m["timing/advantage_s"] = time.Since(t0).Seconds()

	t0 = time.Now()
	up, err := r.update(ctx, train, adv, opt, ref, rng, step)
	if err != nil {
		return stepOutput{}, fmt.Errorf("trainer: step %d: update: %w", step, err)
	}
	for k, v := range up {
		m[k] = v
	}
	m["timing/update_s"] = time.Since(t0).Seconds()
	r.klWatch.note(r.out, step, m, r.Cfg.GRPO.RolloutCorrection.KLJump)
	if err := src.updated(step, r.Model); err != nil { // a producer samples later steps from these weights
		return stepOutput{}, fmt.Errorf("trainer: step %d: publish weights: %w", step, err)
	}
	return r.stepStats(b.trajs, m, start), nil
}

// putBatchRewards records the batch's rollout speed and mean rewards,
// in all and per component.
func putBatchRewards(m Metrics, b *stepBatch) {
	m["rollout/tokens_per_s"] = float64(sampledTokens(b.trajs)) / m["timing/rollout_s"]
	n := float64(len(b.trajs))
	for k, v := range b.parts {
		m["reward/"+k+"/mean"] = v / n
	}
	m["reward/mean"] = mean(b.rewards)
}

// advantages returns the trajectories of b that train and their
// advantages under grpo.advantage (as rows: a trajectory the chat
// template split gives one per sequence, see trainingRows), recording
// the share of groups with no spread in reward and the draws of dynamic
// sampling. The estimator sees
// the training rollouts' rewards, loss-token counts and, when it needs
// them (gdpo), their reward components (advantageInput); a batch it
// cannot estimate is an error.
func (r *Run) advantages(b *stepBatch, m Metrics) ([]*rollout.Trajectory, []float64, error) {
	g, G := r.Cfg.GRPO, r.Cfg.Rollout.GroupSize
	train, in, err := r.advantageInput(b)
	if err != nil {
		return nil, nil, fmt.Errorf("trainer: grpo.advantage %s: %w", g.Advantage, err)
	}
	adv, zeroGroups, err := Estimate(g.Advantage, in)
	if err != nil {
		return nil, nil, err
	}
	if len(train) > 0 { // none when a stale batch was dropped
		m["reward/frac_zero_std"] = float64(zeroGroups) / float64(len(train)/G)
	}
	if g.DynamicSampling.Enabled {
		putDraws(m, b, G)
	}
	train, adv = r.trainingRows(train, adv) // a split trajectory trains each of its sequences
	return train, adv, nil
}

// stepStats scores the step's trajectories for m (tool use, lengths,
// accuracy), with the step's throughput since start, peak memory and the
// tool library's size.
func (r *Run) stepStats(trajs []*rollout.Trajectory, m Metrics, start time.Time) stepOutput {
	ro := r.score(trajs, r.Cfg.Rollout.GroupSize)
	m["rollout/tool_calls/mean"] = ro.ToolCalls
	m["rollout/tool_fail_frac"] = ro.ToolFailFrac
	m["rollout/response_len/mean"] = ro.ResponseLen
	m["rollout/truncated_frac"] = ro.TruncatedFrac
	m["train/accuracy"] = ro.Accuracy
	tokens := 0
	for _, t := range trajs {
		tokens += len(t.Tokens)
	}
	m["throughput/tokens_per_s"] = float64(tokens) / time.Since(start).Seconds()
	m["sys/peak_rss_mib"] = sysmem.PeakRSSMiB()
	if r.lib != nil {
		m["tools/library_size"] = float64(r.lib.Lib.Len())
		m["tools/grown"] = float64(r.lib.Grown())
	}
	return stepOutput{metrics: m, tokens: tokens, accuracy: ro.Accuracy}
}

// drawStep gives the servers the weights labelled push (syncServers) and
// rolls out and scores step's groups from r.Model.
func (r *Run) drawStep(ctx context.Context, step, push int, m Metrics) (*stepBatch, error) {
	if err := r.syncServers(ctx, push, m); err != nil {
		return nil, fmt.Errorf("trainer: step %d: %w", step, err)
	}
	r.art.reembed() // embed selection follows the policy's weights
	draw := r.drawBatch
	if r.atlass != nil {
		draw = r.atlassBatch // the policy's phases provide each task's tools
	}
	b, err := draw(ctx, step, m)
	if err != nil {
		return nil, fmt.Errorf("trainer: step %d: rollout: %w", step, err)
	}
	if r.lib != nil {
		if err := r.lib.Err(); err != nil { // sessions ran without their tools
			return nil, fmt.Errorf("trainer: step %d: tool library: %w", step, err)
		}
	}
	return b, nil
}

// update runs mu epochs of mini-batch updates on the step's trajectories.
// Rollouts cut by the length budget are left out when mask_truncated is on.
// The first mini-batch sees the weights that sampled, so its current
// log-probs are the sampling-time ones; later ones are recomputed. The
// mismatch between the sampler's log-probs and the trainer's is measured
// and, with grpo.rollout_correction, corrected (correctRollouts). A ctx
// that ends stops it before the next mini-batch with ErrInterrupted; the
// step is then not recorded, and a resumed run takes it again from the
// last checkpoint.
func (r *Run) update(ctx context.Context, trajs []*rollout.Trajectory, adv []float64, opt optimizer, ref *policy.Model, rng interface{ Perm(int) []int }, step int) (Metrics, error) {
	// Old, new and reference log-probs are those of softmax(logits / T)
	// at the rollouts' temperature, as the recorded ones are.
	r.Model.SetTemperature(r.Cfg.Rollout.Temperature)
	if ref != nil {
		ref.SetTemperature(r.Cfg.Rollout.Temperature)
	}
	r.Model.SetRecompute(r.Cfg.Model.Recompute)
	g := r.Cfg.GRPO
	keep := r.trainable(trajs)
	m := Metrics{"lr": r.lr(step)}
	if len(keep) == 0 {
		return m, nil
	}
	b, err := r.gatherUpdate(trajs, keep, adv, ref, m)
	if err != nil {
		return nil, err
	}
	lc := g.lossConfig(r.maxTokens())
	sum := Metrics{}
	updates := 0
	for epoch := 0; epoch < g.Epochs; epoch++ {
		order := rng.Perm(len(keep))
		for mb := 0; mb < g.MiniBatches; mb++ {
			var idx []int
			for j := mb; j < len(order); j += g.MiniBatches {
				idx = append(idx, keep[order[j]])
			}
			if len(idx) == 0 {
				continue
			}
			if ctx.Err() != nil {
				return nil, ErrInterrupted
			}
			if err := r.minibatch(b, idx, updates == 0, lc, opt, step, sum); err != nil {
				return nil, err
			}
			updates++
		}
	}
	for k, v := range sum {
		if k != "update/skipped" {
			v /= float64(updates)
		}
		m[k] = v
	}
	for k, v := range b.mismatch {
		m[k] = v
	}
	return m, nil
}

// gatherUpdate gathers what every mini-batch of the update reads for the
// kept trajectories (indexed as trajs): the reference log-probs, the
// sampling-time log-probs and loss mask (lossSeqs), the decoupled
// objective's correction of stale rollouts (proximal) and the
// rollout correction (correctRollouts), recording their metrics in m.
func (r *Run) gatherUpdate(trajs []*rollout.Trajectory, keep []int, adv []float64, ref *policy.Model, m Metrics) (*updateBatch, error) {
	g := r.Cfg.GRPO
	seqs := make([][]int, len(trajs))
	for _, i := range keep {
		seqs[i] = trajs[i].Tokens
	}
	b := &updateBatch{trajs: trajs, seqs: seqs, adv: adv}
	var err error
	if b.ref, err = r.refLogProbs(ref, trajs, seqs, keep); err != nil {
		return nil, err
	}
	if b.old, b.mask, err = r.lossSeqs(trajs, keep); err != nil {
		return nil, err
	}
	behav := b.old
	b.first = b.old         // the first minibatch's weights are those that sampled
	if g.MaxStaleness > 0 { // they are not: correct for the older policy
		if b.old, b.first, b.isw, err = r.proximal(trajs, keep, behav, b.mask, m); err != nil {
			return nil, err
		}
	}
	if err := r.correctRollouts(b, keep, behav, g.MaxStaleness > 0, m); err != nil {
		return nil, err
	}
	return b, nil
}

// trainable returns the indexes of the trajectories that enter the loss:
// all, less those cut by the length budget when mask_truncated is on.
func (r *Run) trainable(trajs []*rollout.Trajectory) []int {
	var keep []int
	for i, t := range trajs {
		if r.Cfg.GRPO.MaskTruncated && t.Stop == rollout.StopLength {
			continue
		}
		keep = append(keep, i)
	}
	return keep
}

// refLogProbs returns the reference model's log-probs of the kept
// sequences (indexed as trajs), or nil without a reference.
func (r *Run) refLogProbs(ref *policy.Model, trajs []*rollout.Trajectory, seqs [][]int, keep []int) ([][]float32, error) {
	if ref == nil {
		return nil, nil
	}
	out := make([][]float32, len(trajs))
	lp, err := r.red.logProbs(ref, pick(trajs, keep), pick(seqs, keep))
	if err != nil {
		return nil, err
	}
	for j, i := range keep {
		out[i] = lp[j]
	}
	return out, nil
}

// updateBatch is what every mini-batch of a step's update reads, indexed
// as the step's trajectories: the sequences, advantages, the log-probs of
// the first mini-batch (first), the old and reference ones, the loss mask
// and the truncated importance weights (nil when none apply).
//
// measure, when set, holds the sampler's log-probs for the first
// mini-batch to measure the mismatch against the log-probs its own
// forward pass computes (measureFirst), recording it in mismatch.
type updateBatch struct {
	trajs                []*rollout.Trajectory
	seqs                 [][]int
	adv                  []float64
	first, old, ref, isw [][]float32
	mask                 [][]uint8
	measure              [][]float32
	mismatch             Metrics
	// diff: record rollout/logprob_diff/mean with the mismatch (rollouts
	// sampled on servers).
	diff bool
}

// minibatch takes one optimizer step on the trajectories idx of b and adds
// its losses, clip fractions and gradient norm to sum. The first
// mini-batch of a step reads b.first as the current log-probs; later ones
// recompute them with the updated weights.
func (r *Run) minibatch(b *updateBatch, idx []int, first bool, lc LossConfig, opt optimizer, step int, sum Metrics) error {
	mbSeqs, mbTrajs := pick(b.seqs, idx), pick(b.trajs, idx)
	var cur [][]float32
	if !first {
		var err error
		if cur, err = r.red.logProbs(r.Model, mbTrajs, mbSeqs); err != nil {
			return err
		}
	}
	inputs := make([]SeqInput, len(idx))
	for j, i := range idx {
		in := SeqInput{LogP: b.first[i], OldLogP: b.old[i], Mask: b.mask[i], Adv: b.adv[i]}
		if cur != nil {
			in.LogP = cur[j]
		}
		if b.isw != nil {
			in.ISWeight = b.isw[i]
		}
		if b.ref != nil {
			in.RefLogP = b.ref[i]
		}
		inputs[j] = in
	}
	out := PolicyLoss(lc, inputs)
	if err := r.Model.ZeroGrad(); err != nil {
		return err
	}
	logp, err := r.backwardOwn(mbTrajs, mbSeqs, out.Coef, r.Cfg.GRPO.MicroBatch)
	if err != nil {
		return err
	}
	if first && b.measure != nil {
		if b.mismatch, err = measureFirst(b, idx, logp); err != nil {
			return err
		}
	}
	gn, err := opt.Step(r.lr(step))
	if err != nil {
		return err
	}
	sum["loss/policy"] += out.PolicyLoss
	sum["loss/kl"] += out.KL
	sum["loss/total"] += out.Loss
	sum["clip/frac"] += out.ClipFrac
	if lc.ClipRatioC > 0 {
		sum["clip/frac_lower"] += out.ClipFracLower
	}
	if math.IsNaN(gn) {
		sum["update/skipped"]++ // non-finite gradient: weights untouched
	} else {
		sum["grad/norm"] += gn
	}
	return nil
}

func pick[T any](seqs []T, idx []int) []T {
	out := make([]T, len(idx))
	for j, i := range idx {
		out[j] = seqs[i]
	}
	return out
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// backwardOwn back-propagates coef through the sequences of a minibatch
// that this process rolled out (reducer.own: all of them on one
// process); trajs[j] is the trajectory of seqs[j]. The optimizer's step
// sums the gradients over the processes. It returns the log-probs of the
// sequences it back-propagated, in their order in seqs.
func (r *Run) backwardOwn(trajs []*rollout.Trajectory, seqs [][]int, coef [][]float32, micro int) ([][]float32, error) {
	own := r.red.own(trajs)
	if len(own) == 0 {
		return nil, nil
	}
	return backward(r.Model, pick(seqs, own), pick(coef, own), micro)
}

// backward runs m.Backward on seqs in passes of at most micro sequences
// (0: one pass), so the gradients of the passes add up to those of the
// whole batch, and returns the log-probs of every sequence.
func backward(m *policy.Model, seqs [][]int, coef [][]float32, micro int) ([][]float32, error) {
	if micro <= 0 || micro >= len(seqs) {
		return m.Backward(seqs, coef)
	}
	logp := make([][]float32, 0, len(seqs))
	for lo := 0; lo < len(seqs); lo += micro {
		hi := min(lo+micro, len(seqs))
		lp, err := m.Backward(seqs[lo:hi], coef[lo:hi])
		if err != nil {
			return nil, err
		}
		logp = append(logp, lp...)
	}
	return logp, nil
}

// sampledTokens counts the tokens the policy wrote in trajs (every draw
// of the step): the decoding work of the rollouts, without prompts, tool
// results and user turns.
func sampledTokens(trajs []*rollout.Trajectory) int {
	n := 0
	for _, t := range trajs {
		n += t.ModelTokens()
	}
	return n
}
