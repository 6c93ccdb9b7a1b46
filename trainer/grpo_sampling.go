package trainer

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
)

// DynamicSamplingConfig is DAPO's dynamic sampling (Yu et al., arXiv
// 2503.14476, §3.2; verl's algorithm.filter_groups). A group whose total
// rewards are all equal has zero advantage and gives no policy gradient;
// dropping it and drawing more prompts keeps every step's batch full of
// groups that teach something.
type DynamicSamplingConfig struct {
	// Enabled drops the groups with zero reward spread and draws
	// batch_size more prompts at a time until batch_size groups with
	// spread are found or MaxDraws batches were drawn. Default false.
	Enabled bool `yaml:"enabled"`
	// MaxDraws bounds the batches of prompts one step draws, the first
	// included; a step that ends short trains on the groups it found, and
	// one that found none makes no update. Default 4; must be ≥ 1.
	MaxDraws int `yaml:"max_draws"`
}

// Overlong modes (OverlongConfig.Mode).
const (
	// OverlongModeNone adds nothing to the reward.
	OverlongModeNone = "none"
	// OverlongModePenalty adds DAPO's soft overlong punishment (OverlongPenalty).
	OverlongModePenalty = "penalty"
)

// OverlongConfig is DAPO's soft overlong punishment (arXiv 2503.14476,
// eq. 13; verl's reward_model.overlong_buffer). Masking the rollouts that
// hit the budget is the other half of DAPO's overlong handling and is
// grpo.mask_truncated; the two combine.
type OverlongConfig struct {
	// Mode is "none" (default) or "penalty". There is no "mask" mode:
	// masking is grpo.mask_truncated.
	Mode string `yaml:"mode"`
	// Buffer is the number of tokens before rollout.max_response_tokens
	// over which the penalty grows linearly from 0 to −Penalty. Must be
	// in [1, max_response_tokens] in penalty mode. Default 0.
	Buffer int `yaml:"buffer"`
	// Penalty is the largest penalty, reached at the budget (verl's
	// overlong_penalty_factor). Default 1; must be > 0 in penalty mode.
	Penalty float64 `yaml:"penalty"`
}

// OverlongPenalty is DAPO's soft overlong punishment (eq. 13) of a
// response of length tokens under a budget of maxLen, scaled by penalty:
//
//	0                                         length ≤ maxLen − buffer
//	−(length − (maxLen − buffer))/buffer·P    maxLen − buffer < length ≤ maxLen
//	−P                                        length > maxLen
//
// which is verl's min(−exceed/buffer·P, 0) for lengths within the budget.
// buffer must be ≥ 1.
func OverlongPenalty(length, maxLen, buffer int, penalty float64) float64 {
	start := maxLen - buffer
	switch {
	case length <= start:
		return 0
	case length > maxLen:
		return -penalty
	}
	return -float64(length-start) / float64(buffer) * penalty
}

// validateVariants checks the dynamic-sampling and overlong keys.
func (g GRPOConfig) validateVariants(maxResponseTokens int) error {
	ds, ov := g.DynamicSampling, g.Overlong
	switch {
	case ds.MaxDraws < 1:
		return fmt.Errorf("config: grpo.dynamic_sampling.max_draws must be >= 1 (batches drawn per step, the first included), got %d", ds.MaxDraws)
	case ov.Mode == "mask":
		return fmt.Errorf("config: grpo.overlong.mode mask is grpo.mask_truncated: true (the default): use overlong.mode none or penalty")
	case ov.Mode != OverlongModeNone && ov.Mode != OverlongModePenalty:
		return fmt.Errorf("config: grpo.overlong.mode %q is unknown: use %s or %s", ov.Mode, OverlongModeNone, OverlongModePenalty)
	case ov.Mode != OverlongModePenalty:
		return nil
	case ov.Buffer < 1 || ov.Buffer > maxResponseTokens:
		return fmt.Errorf("config: grpo.overlong.buffer must be in [1, rollout.max_response_tokens = %d] in penalty mode, got %d", maxResponseTokens, ov.Buffer)
	case !(ov.Penalty > 0) || math.IsInf(ov.Penalty, 1):
		return fmt.Errorf("config: grpo.overlong.penalty must be a finite value > 0 in penalty mode (DAPO uses 1), got %v", ov.Penalty)
	}
	return nil
}

// stepBatch is what one GRPO step drew: every rollout, scored, and which
// of them the update trains on.
type stepBatch struct {
	trajs   []*rollout.Trajectory // every rollout drawn, in groups of G, in draw order
	rewards []float64             // total reward of each, overlong penalty included
	parts   map[string]float64    // each reward component summed over trajs
	comps   []map[string]float64  // each rollout's reward components, as trajs
	train   []int                 // indices into trajs of the rollouts trained on, whole groups
	draws   int                   // batches of prompts drawn
	dropped int                   // groups left out for zero reward spread
}

// drawBatch rolls out and scores the prompts of a step, adding the time it
// spends to m's timing/rollout_s and timing/reward_s. Draw 0 takes
// batch_size prompts from the stream tasks/grpo and samples them with rng,
// as every step does. With dynamic sampling the groups whose total rewards
// are all equal are dropped, and draw d = 1, 2, ... takes batch_size more
// prompts from the stream tasks/grpo/draw-<d> and samples them from the
// stream grpo/draw-<d>, until batch_size groups with spread are in hand or
// max_draws draws were made; the first batch_size of them, in draw order,
// are trained on. A group counts as without spread exactly when
// GroupAdvantages gives it zero advantages (verl's filter uses np.std > 0,
// which rounding can make true for equal rewards). Every stream derives
// from (seed, step), so a resumed run draws what the uninterrupted one
// drew.
func (r *Run) drawBatch(ctx context.Context, step int, m Metrics) (*stepBatch, error) {
	g := r.Cfg.GRPO
	G := r.Cfg.Rollout.GroupSize
	b := &stepBatch{parts: map[string]float64{}}
	for d := 0; ; d++ {
		name := "grpo"
		if d > 0 {
			name = fmt.Sprintf("grpo/draw-%d", d)
		}
		tasks := r.Train.Sample(r.taskRNG(name, step), g.BatchSize)
		lo := len(b.trajs)
		if err := r.rolloutInto(ctx, b, tasks, name, step, m); err != nil {
			return nil, err
		}
		b.draws++
		if !g.DynamicSampling.Enabled {
			for i := range b.trajs {
				b.train = append(b.train, i)
			}
			return b, nil
		}
		var dropped int
		b.train, dropped = pickGroups(b.rewards, G, lo, g.BatchSize, b.train)
		b.dropped += dropped
		if len(b.train) >= g.BatchSize*G || b.draws >= g.DynamicSampling.MaxDraws {
			return b, nil
		}
	}
}

// pickGroups walks the groups of groupSize rewards from index lo on:
// each whose rewards are all equal is counted in dropped; each other one
// has its indices appended to train while train holds fewer than want
// groups. The groups with spread past want are neither.
func pickGroups(rewards []float64, groupSize, lo, want int, train []int) (_ []int, dropped int) {
	for ; lo+groupSize <= len(rewards); lo += groupSize {
		switch {
		case !hasSpread(rewards[lo : lo+groupSize]):
			dropped++
		case len(train) < want*groupSize:
			for i := lo; i < lo+groupSize; i++ {
				train = append(train, i)
			}
		}
	}
	return train, dropped
}

// rolloutInto rolls out the tasks of one draw (phase names its streams),
// scores them and appends them to b, adding the time spent to m's
// timing/rollout_s and timing/reward_s. A data-parallel run splits the
// groups among its ranks (reducer.rollout).
func (r *Run) rolloutInto(ctx context.Context, b *stepBatch, tasks []envs.Task, phase string, step int, m Metrics) error {
	return r.red.rollout(ctx, r, b, tasks, phase, step, m)
}

// scoreDraw appends trajs to b with their rewards (scoreOne).
func (r *Run) scoreDraw(b *stepBatch, trajs []*rollout.Trajectory) {
	r.noteTemplateDiffers(trajs)
	r.noteTemplateSplits(trajs)
	for _, t := range trajs {
		total, parts := r.scoreOne(t)
		b.add(t, total, parts)
	}
}

// scoreOne is a rollout's reward: the composite's total and parts, and
// the overlong penalty as the part "overlong" when it is on.
func (r *Run) scoreOne(t *rollout.Trajectory) (float64, map[string]float64) {
	ov := r.Cfg.GRPO.Overlong
	total, parts := r.Reward.Score(t, t.Task)
	if ov.Mode == OverlongModePenalty {
		p := OverlongPenalty(t.ModelTokens(), r.Cfg.Rollout.MaxResponseTokens, ov.Buffer, ov.Penalty)
		total += p
		parts = maps.Clone(parts)
		if parts == nil {
			parts = map[string]float64{}
		}
		parts["overlong"] += p
	}
	return total, parts
}

// add appends a scored rollout.
func (b *stepBatch) add(t *rollout.Trajectory, total float64, parts map[string]float64) {
	for k, v := range parts {
		b.parts[k] += v
	}
	b.trajs = append(b.trajs, t)
	b.rewards = append(b.rewards, total)
	b.comps = append(b.comps, parts)
}

// training returns the rollouts trained on and their rewards.
func (b *stepBatch) training() ([]*rollout.Trajectory, []float64) {
	trajs := make([]*rollout.Trajectory, len(b.train))
	rewards := make([]float64, len(b.train))
	for j, i := range b.train {
		trajs[j], rewards[j] = b.trajs[i], b.rewards[i]
	}
	return trajs, rewards
}

// trainingParts returns the reward components of the rollouts trained
// on, as training orders them. It is an error when the batch does not
// hold them for every rollout (a batch not built by add).
func (b *stepBatch) trainingParts() ([]map[string]float64, error) {
	if len(b.comps) != len(b.trajs) {
		return nil, fmt.Errorf("the batch holds the reward components of %d of its %d rollouts", len(b.comps), len(b.trajs))
	}
	parts := make([]map[string]float64, len(b.train))
	for j, i := range b.train {
		parts[j] = b.comps[i]
	}
	return parts, nil
}

// hasSpread reports whether a group's rewards are not all exactly equal,
// the groups whose advantages are not all zero.
func hasSpread(r []float64) bool {
	return slices.ContainsFunc(r, func(x float64) bool { return x != r[0] })
}

// putDraws records what dynamic sampling drew: grpo/draws,
// grpo/groups_drawn, grpo/groups_dropped (zero reward spread) and
// grpo/groups_trained; reward/frac_zero_std becomes dropped over drawn.
func putDraws(m Metrics, b *stepBatch, groupSize int) {
	drawn := len(b.trajs) / groupSize
	m["grpo/draws"] = float64(b.draws)
	m["grpo/groups_drawn"] = float64(drawn)
	m["grpo/groups_dropped"] = float64(b.dropped)
	m["grpo/groups_trained"] = float64(len(b.train) / groupSize)
	m["reward/frac_zero_std"] = float64(b.dropped) / float64(drawn)
}
