package trainer

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// dyadicSeqs draws sequences whose log-probs are multiples of 2^-12 in
// (−4, 0), so that adding ±2^-10 is exact in float32 and a finite
// difference can move LogP and OldLogP together without rounding. Token
// ratios and each sequence's geometric-mean ratio stay 0.01 from the clip
// bounds 1 ± eps, so no perturbation crosses a kink.
func dyadicSeqs(rng *rand.Rand, n int, spread, eps float64) []SeqInput {
	seqs := make([]SeqInput, n)
	for i := range seqs {
		for {
			seqs[i] = dyadicSeq(rng, spread)
			if farFromKinks(seqs[i], eps) {
				break
			}
		}
	}
	return seqs
}

func dyadicSeq(rng *rand.Rand, spread float64) SeqInput {
	q := func(x float64) float32 { return float32(math.Round(x*4096) / 4096) }
	T := 3 + rng.Intn(5)
	s := SeqInput{Adv: 4*rng.Float64() - 2}
	for t := 0; t < T; t++ {
		lp := -0.1 - 3.5*rng.Float64()
		s.LogP = append(s.LogP, q(lp))
		s.OldLogP = append(s.OldLogP, q(math.Min(lp+spread*(2*rng.Float64()-1), -0.05)))
		s.RefLogP = append(s.RefLogP, q(math.Min(lp+rng.Float64()-0.5, -0.05)))
		m := uint8(1)
		if t > 0 && rng.Float64() < 0.2 {
			m = 0
		}
		s.Mask = append(s.Mask, m)
	}
	return s
}

func farFromKinks(s SeqInput, eps float64) bool {
	far := func(lr float64) bool {
		r := math.Exp(lr)
		return math.Abs(r-(1-eps)) > 0.01 && math.Abs(r-(1+eps)) > 0.01
	}
	sum, n := 0.0, 0
	for t, m := range s.Mask {
		lr := float64(s.LogP[t]) - float64(s.OldLogP[t])
		if m != 0 {
			sum += lr
			n++
		}
		if !far(lr) {
			return false
		}
	}
	return far(sum / float64(n))
}

// TestObjectiveGradientCheck compares each loss's Coef with central
// differences of Loss. For gspo the difference is of Loss itself: its
// token gradient −A·s_i, divided by n under seq-mean-token-mean, is the
// derivative of −A·s_i. For cispo the importance weight passes no
// gradient, so the difference moves LogP and OldLogP together, which
// holds the ratio, and with it the weight, fixed.
func TestObjectiveGradientCheck(t *testing.T) {
	const h = 1.0 / 1024
	for _, loss := range []string{LossPPOClip, LossGSPO, LossCISPO} {
		for _, agg := range []string{AggSeqMeanTokenMean, AggTokenMean, AggSeqMeanTokenSumNorm} {
			t.Run(loss+"/"+agg, func(t *testing.T) {
				rng := rand.New(rand.NewSource(23))
				cfg := LossConfig{Loss: loss, EpsLow: 0.05, EpsHigh: 0.05, Beta: 0.3, Agg: agg, MaxTokens: 10}
				seqs := dyadicSeqs(rng, 8, 0.4, cfg.EpsLow)
				out := PolicyLoss(cfg, seqs)
				moveOld := loss == LossCISPO
				checked := 0
				for i, s := range seqs {
					for tk := range s.LogP {
						fd := centralDiff(cfg, seqs, i, tk, h, moveOld)
						if got := float64(out.Coef[i][tk]); math.Abs(got-fd) > 1e-5+1e-4*math.Abs(fd) {
							t.Errorf("seq %d token %d (mask %d): coef %.9g, finite difference %.9g", i, tk, s.Mask[tk], got, fd)
						}
						checked++
					}
				}
				if out.ClipFrac == 0 || out.ClipFrac == 1 {
					t.Errorf("clip frac %g: the draw should mix clipped and unclipped tokens", out.ClipFrac)
				}
				if checked < 30 {
					t.Fatalf("only %d tokens checked", checked)
				}
			})
		}
	}
}

func centralDiff(cfg LossConfig, seqs []SeqInput, i, t int, h float64, moveOld bool) float64 {
	s := seqs[i]
	x, o := s.LogP[t], s.OldLogP[t]
	at := func(d float64) float64 {
		s.LogP[t] = float32(float64(x) + d)
		if moveOld {
			s.OldLogP[t] = float32(float64(o) + d)
		}
		return PolicyLoss(cfg, seqs).Loss
	}
	fd := (at(h) - at(-h)) / (2 * h)
	s.LogP[t], s.OldLogP[t] = x, o
	return fd
}

// TestObjectivesByHand works each surrogate on sequences small enough to
// check on paper.
func TestObjectivesByHand(t *testing.T) {
	ln := math.Log
	// Two tokens with log-ratios ln 1.1 and ln 1.3: s = sqrt(1.43).
	gs := SeqInput{LogP: []float32{float32(ln(1.1)), float32(ln(1.3))}, OldLogP: []float32{0, 0}, Mask: []uint8{1, 1}, Adv: 1}
	s := math.Sqrt(1.1 * 1.3)
	tests := []struct {
		name     string
		cfg      LossConfig
		seq      SeqInput
		loss     float64
		coef     []float64
		clipFrac float64
	}{
		// GSPO, wide clip: loss −A·s, each token −A·s/2.
		{"gspo unclipped", LossConfig{Loss: LossGSPO, EpsLow: 0.2, EpsHigh: 0.28}, gs, -s, []float64{-s / 2, -s / 2}, 0},
		// GSPO, paper clip: s ≈ 1.196 > 1.0004, clipped: loss −1.0004, no gradient.
		{"gspo clipped", LossConfig{Loss: LossGSPO, EpsLow: GSPOEpsLow, EpsHigh: GSPOEpsHigh}, gs, -(1 + GSPOEpsHigh), []float64{0, 0}, 1},
		// CISPO: weights min(1.1, 1.2) = 1.1 and min(1.3, 1.2) = 1.2; the
		// gradient of −w·A·logp is −w·A on every token, clipped or not.
		{"cispo", LossConfig{Loss: LossCISPO, EpsLow: 0.2, EpsHigh: 0.2}, gs,
			-(1.1*ln(1.1) + 1.2*ln(1.3)) / 2, []float64{-1.1 / 2, -1.2 / 2}, 0.5},
		// PPO clip: the second token is clipped at 1.28.
		{"ppo_clip", LossConfig{EpsLow: 0.2, EpsHigh: 0.28}, gs, -(1.1 + 1.28) / 2, []float64{-1.1 / 2, 0}, 0.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Agg = AggSeqMeanTokenMean
			out := PolicyLoss(tc.cfg, []SeqInput{tc.seq})
			if !grpoClose(out.Loss, tc.loss, 1e-6) || out.ClipFrac != tc.clipFrac {
				t.Errorf("loss %.9g clip %g, want %.9g %g", out.Loss, out.ClipFrac, tc.loss, tc.clipFrac)
			}
			for j, want := range tc.coef {
				if !grpoClose(float64(out.Coef[0][j]), want, 1e-6) {
					t.Errorf("coef[%d] = %.9g, want %.9g", j, out.Coef[0][j], want)
				}
			}
		})
	}
}

// TestPPOClipByNameIsToday checks that naming the default loss changes
// nothing, bit for bit.
func TestPPOClipByNameIsToday(t *testing.T) {
	for _, agg := range []string{AggSeqMeanTokenMean, AggTokenMean, AggSeqMeanTokenSumNorm} {
		seqs := randomSeqs(rand.New(rand.NewSource(5)), 6)
		base := LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.3, Agg: agg, MaxTokens: 10, ClipRatioC: 3, KLClamp: 10}
		named := base
		named.Loss = LossPPOClip
		if a, b := PolicyLoss(base, seqs), PolicyLoss(named, seqs); fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: ppo_clip by name differs: %v vs %v", agg, a, b)
		}
	}
}

func TestLossRegistry(t *testing.T) {
	t.Run("unknown lists valid names", func(t *testing.T) {
		_, err := LossByName("ppo")
		if err == nil || !strings.Contains(err.Error(), "cispo, gspo") || !strings.Contains(err.Error(), `"ppo"`) {
			t.Errorf("err = %v, want one naming ppo and listing the losses", err)
		}
		c := DefaultLossConfig()
		c.Loss = "ppo"
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "unknown loss") {
			t.Errorf("Validate = %v, want an unknown-loss error", err)
		}
	})
	t.Run("duplicate panics", func(t *testing.T) {
		msg := grpoPanics(func() { RegisterLoss(LossGSPO, ppoClipSurrogate) })
		if !strings.Contains(msg, "twice") {
			t.Errorf("panic = %q, want a duplicate-registration panic", msg)
		}
	})
	t.Run("empty name panics", func(t *testing.T) {
		if msg := grpoPanics(func() { RegisterLoss("", ppoClipSurrogate) }); !strings.Contains(msg, "trainer:") {
			t.Errorf("panic = %q", msg)
		}
	})
	t.Run("dual clip refused", func(t *testing.T) {
		for _, loss := range []string{LossGSPO, LossCISPO} {
			c := DefaultLossConfig()
			c.Loss, c.ClipRatioC = loss, 3
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), loss) || !strings.Contains(err.Error(), "clip_ratio_c") {
				t.Errorf("%s: Validate = %v, want one naming the loss and clip_ratio_c", loss, err)
			}
		}
	})
}
