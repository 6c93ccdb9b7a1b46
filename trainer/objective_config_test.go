package trainer

import (
	"strings"
	"testing"
)

func TestObjectiveConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []string // substrings of the error; none means valid
	}{
		{"rloo", "grpo:\n  advantage: rloo\n", nil},
		{"reinforce_pp", "grpo:\n  advantage: reinforce_pp\n", nil},
		{"reinforce_pp_baseline", "grpo:\n  advantage: reinforce_pp_baseline\n", nil},
		{"gdpo", "grpo:\n  advantage: gdpo\n", nil},
		{"unknown advantage", "grpo:\n  advantage: ppo\n", []string{"grpo.advantage", `"ppo"`, "drgrpo, grpo", "gdpo"}},
		{"gspo", "grpo:\n  loss: gspo\n", nil},
		{"cispo", "grpo:\n  loss: cispo\n  agg: token-mean\n", nil},
		{"unknown loss", "grpo:\n  loss: dpo\n", []string{"grpo.loss", `"dpo"`, "cispo, gspo, ppo_clip"}},
		{"gspo with eps_low", "grpo:\n  loss: gspo\n  eps_low: 0.001\n", []string{"grpo.gspo_eps_low and grpo.gspo_eps_high, not grpo.eps_low/eps_high"}},
		{"gspo clip range", "grpo:\n  loss: gspo\n  gspo_eps_low: 1.5\n", []string{"grpo.gspo_eps_low must be in (0, 1)"}},
		{"gspo dual clip", "grpo:\n  loss: gspo\n  clip_ratio_c: 3\n", []string{"grpo.loss: gspo does not use grpo.clip_ratio_c (dual clip); remove it"}},
		{"cispo dual clip", "grpo:\n  loss: cispo\n  clip_ratio_c: 3\n", []string{"grpo.loss: cispo", "grpo.clip_ratio_c"}},
		{"ppo_clip dual clip", "grpo:\n  loss: ppo_clip\n  clip_ratio_c: 3\n", nil},
		{"correction token is", "grpo:\n  rollout_correction:\n    is: token\n", nil},
		{"correction sequence is, geometric rs", "grpo:\n  rollout_correction:\n    is: sequence\n    rs: geometric\n    rs_low: 0.999\n    rs_high: 1.001\n", nil},
		{"correction with staleness", "grpo:\n  max_staleness: 1\n  tis_cap: 0\n  rollout_correction:\n    is: token\n", nil},
		{"correction rs with tis", "grpo:\n  max_staleness: 1\n  rollout_correction:\n    rs: token\n", nil},
		{"correction is with tis", "grpo:\n  max_staleness: 1\n  rollout_correction:\n    is: token\n", []string{"grpo.rollout_correction.is token", "grpo.tis_cap", "tis_cap: 0"}},
		{"kl_jump off", "grpo:\n  rollout_correction:\n    kl_jump: 0\n", nil},
		{"bad kl_jump", "grpo:\n  rollout_correction:\n    kl_jump: -1\n", []string{"grpo.rollout_correction.kl_jump", "0.001"}},
		{"bad correction is", "grpo:\n  rollout_correction:\n    is: tokens\n", []string{"grpo.rollout_correction.is", `"tokens"`, "sequence"}},
		{"bad correction cap", "grpo:\n  rollout_correction:\n    is: token\n    is_cap: 0\n", []string{"grpo.rollout_correction.is_cap"}},
		{"bad correction rs", "grpo:\n  rollout_correction:\n    rs: geo\n", []string{"grpo.rollout_correction.rs", "geometric"}},
		{"bad correction band", "grpo:\n  rollout_correction:\n    rs: token\n    rs_low: 3\n", []string{"grpo.rollout_correction.rs_low", "rs_high = 2"}},
		{"unknown correction key", "grpo:\n  rollout_correction:\n    cap: 2\n", []string{`"grpo.rollout_correction.cap"`, "is_cap"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "test.yaml", nil)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("valid config refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error for %q", c.yaml)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestObjectiveLossConfig checks what the step's LossConfig carries: the
// loss, and the clip range it reads: gspo_eps_* for gspo, eps_* otherwise.
func TestObjectiveLossConfig(t *testing.T) {
	cases := []struct {
		name, yaml string
		loss       string
		lo, hi     float64
	}{
		{"default", "", LossPPOClip, 0.2, 0.28},
		{"gspo defaults", "grpo:\n  loss: gspo\n", LossGSPO, GSPOEpsLow, GSPOEpsHigh},
		{"gspo own clip", "grpo:\n  loss: gspo\n  gspo_eps_low: 0.001\n", LossGSPO, 0.001, GSPOEpsHigh},
		{"gspo with ppo's range written out", "grpo:\n  loss: gspo\n  eps_low: 0.2\n  eps_high: 0.28\n", LossGSPO, GSPOEpsLow, GSPOEpsHigh},
		{"ppo ignores gspo keys", "grpo:\n  gspo_eps_low: 0.001\n", LossPPOClip, 0.2, 0.28},
		{"cispo", "grpo:\n  loss: cispo\n  eps_high: 4\n", LossCISPO, 0.2, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse([]byte(c.yaml), "test.yaml", nil)
			if err != nil {
				t.Fatal(err)
			}
			lc := cfg.GRPO.lossConfig(64)
			if lc.Loss != c.loss || lc.EpsLow != c.lo || lc.EpsHigh != c.hi {
				t.Errorf("loss %q clip [%g, %g], want %q [%g, %g]", lc.Loss, lc.EpsLow, lc.EpsHigh, c.loss, c.lo, c.hi)
			}
			if err := lc.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}
