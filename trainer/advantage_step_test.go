package trainer

import (
	"math"
	"strings"
	"testing"

	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
)

// componentBatch is two groups of four rollouts scored by a composite of
// answer (weight 1) and format (weight 0.5): answer is 0 or 1, format
// moves by 0.1 at most, so the totals' spread is answer's and GRPO all
// but ignores format, which GDPO normalises in its own right. Each
// rollout has i+2 sampled tokens.
func componentBatch() (*Run, *stepBatch) {
	r := &Run{Cfg: DefaultConfig(), Reward: reward.Composite{{Name: "answer", Weight: 1}, {Name: "format", Weight: 0.5}}}
	r.Cfg.Rollout.GroupSize = 4
	answer := []float64{1, 0, 0, 0, 1, 1, 0, 0}
	format := []float64{0.9, 1, 0.95, 0.9, 0.9, 1, 1, 0.9}
	b := &stepBatch{parts: map[string]float64{}}
	for i := range answer {
		t := &rollout.Trajectory{}
		t.Append(make([]int, i+2), rollout.KindModel, nil)
		b.add(t, answer[i]+0.5*format[i], map[string]float64{"answer": answer[i], "format": format[i]})
		b.train = append(b.train, i)
	}
	return r, b
}

// TestAdvantageEstimatorsInStep runs the step's advantages on
// componentBatch under each estimator: gdpo reads the components and
// differs from grpo, and the estimators get the rollouts' token counts.
func TestAdvantageEstimatorsInStep(t *testing.T) {
	r, b := componentBatch()
	comps, w := RewardComponents(b.comps, r.rewardWeights())
	tokens := []int{2, 3, 4, 5, 6, 7, 8, 9}
	want := map[string][]float64{}
	want["grpo"], _ = GroupAdvantages(b.rewards, 4, true, r.Cfg.GRPO.AdvEps)
	want["gdpo"], _ = GDPOAdvantages(AdvantageInput{Rewards: b.rewards, GroupSize: 4, Eps: r.Cfg.GRPO.AdvEps, Tokens: tokens, Components: comps, Weights: w})
	want["reinforce_pp"], _ = ReinforcePPAdvantages(AdvantageInput{Rewards: b.rewards, GroupSize: 4, Tokens: tokens}, false)
	got := map[string][]float64{}
	for name := range want {
		r.Cfg.GRPO.Advantage = name
		_, adv, err := r.advantages(b, Metrics{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[name] = adv
		for i := range adv {
			if !grpoClose(adv[i], want[name][i], 1e-12) {
				t.Errorf("%s: advantage %d = %g, want %g", name, i, adv[i], want[name][i])
			}
		}
	}
	// Rollouts 1 and 2 have the same answer and different formats: GRPO
	// barely tells them apart, GDPO does by format's own spread.
	gap := func(a []float64) float64 { return math.Abs(a[1] - a[2]) }
	if !(gap(got["gdpo"]) > 5*gap(got["grpo"])) {
		t.Errorf("rollouts 1 and 2: gdpo gap %g, grpo gap %g: gdpo should weigh the format component on its own", gap(got["gdpo"]), gap(got["grpo"]))
	}
}

// TestGDPOMissingComponentsIsAnError: a batch or a reward without
// components makes the step return an error, never panic.
func TestGDPOMissingComponentsIsAnError(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(r *Run, b *stepBatch)
		want  string
	}{
		{"batch without components", func(_ *Run, b *stepBatch) { b.comps = b.comps[:3] }, "reward components of 3 of its 8 rollouts"},
		{"reward without components", func(r *Run, b *stepBatch) {
			r.Reward = nil
			for i := range b.comps {
				b.comps[i] = nil
			}
		}, "no components"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, b := componentBatch()
			r.Cfg.GRPO.Advantage = "gdpo"
			c.spoil(r, b)
			_, _, err := r.advantages(b, Metrics{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "gdpo") {
				t.Errorf("error %v, want one naming gdpo and %q", err, c.want)
			}
		})
	}
}
