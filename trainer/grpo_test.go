package trainer

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func grpoClose(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*(1+math.Abs(want))
}

func grpoPanics(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

func TestGroupAdvantages(t *testing.T) {
	const eps = 1e-6
	tests := []struct {
		name     string
		rewards  []float64
		size     int
		scaleStd bool
		eps      float64
		want     []float64
		zero     int
	}{
		// A group of one has no spread: advantage 0, counted.
		{"group of one", []float64{3, 5}, 1, true, eps, []float64{0, 0}, 2},
		// 0.1 three times: a naive mean rounds to 0.1000…01, but equal
		// rewards must give exactly 0.
		{"all equal", []float64{0.1, 0.1, 0.1}, 3, true, eps, []float64{0, 0, 0}, 1},
		{"all equal no std", []float64{0.1, 0.1, 0.1}, 3, false, eps, []float64{0, 0, 0}, 1},
		// Second group: mean 2, sample std sqrt((4+0+4)/2) = 2, so ±2/(2+eps).
		{"std scaled", []float64{1, 1, 1, 0, 2, 4}, 3, true, eps,
			[]float64{0, 0, 0, -2 / (2 + eps), 0, 2 / (2 + eps)}, 1},
		{"std scaled eps 1", []float64{0, 2, 4}, 3, true, 1, []float64{-2.0 / 3, 0, 2.0 / 3}, 0},
		// Dr. GRPO: only centred.
		{"no std", []float64{1, 1, 1, 0, 2, 4}, 3, false, eps, []float64{0, 0, 0, -2, 0, 2}, 1},
		// Pair {0, 1}: mean 0.5, sample std sqrt(0.5) (population std would
		// be 0.5 and give ±1), so ±0.5/sqrt(0.5) = ±1/sqrt(2).
		{"unbiased std", []float64{0, 1}, 2, true, 0, []float64{-1 / math.Sqrt2, 1 / math.Sqrt2}, 0},
		{"empty", nil, 4, true, eps, []float64{}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, zero := GroupAdvantages(tc.rewards, tc.size, tc.scaleStd, tc.eps)
			if zero != tc.zero {
				t.Errorf("zero-spread groups = %d, want %d", zero, tc.zero)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d advantages, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if !grpoClose(got[i], tc.want[i], 1e-12) {
					t.Errorf("A[%d] = %.15g, want %.15g", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestGroupAdvantagesPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		size int
	}{{"not a multiple", 5, 2}, {"zero size", 4, 0}, {"negative size", 4, -1}} {
		t.Run(tc.name, func(t *testing.T) {
			msg := grpoPanics(func() { GroupAdvantages(make([]float64, tc.n), tc.size, true, 1e-6) })
			if !strings.Contains(msg, "trainer:") {
				t.Errorf("panic = %q, want a trainer: panic", msg)
			}
		})
	}
}

func TestAdvantageRegistry(t *testing.T) {
	rewards := []float64{0, 1, 3, 3}
	for _, tc := range []struct {
		name     string
		scaleStd bool
	}{{"grpo", true}, {"drgrpo", false}} {
		t.Run(tc.name, func(t *testing.T) {
			fn, err := Advantage(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			got, zero := fn(rewards, 2, 1e-6)
			want, wantZero := GroupAdvantages(rewards, 2, tc.scaleStd, 1e-6)
			if zero != wantZero || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got %v, %d; want %v, %d", got, zero, want, wantZero)
			}
		})
	}
	t.Run("unknown lists valid names", func(t *testing.T) {
		_, err := Advantage("ppo")
		if err == nil || !strings.Contains(err.Error(), "drgrpo, grpo") || !strings.Contains(err.Error(), `"ppo"`) {
			t.Errorf("err = %v, want one naming ppo and listing drgrpo, grpo", err)
		}
	})
	t.Run("duplicate panics", func(t *testing.T) {
		msg := grpoPanics(func() { RegisterAdvantage("grpo", func([]float64, int, float64) ([]float64, int) { return nil, 0 }) })
		if !strings.Contains(msg, "twice") {
			t.Errorf("panic = %q, want a duplicate-registration panic", msg)
		}
	})
	t.Run("register new", func(t *testing.T) {
		const name = "test-constant"
		RegisterAdvantage(name, func(r []float64, _ int, _ float64) ([]float64, int) { return make([]float64, len(r)), 0 })
		defer advRegistry.remove(name)
		fn, err := Advantage(name)
		if err != nil || len(mustAdv(fn([]float64{1, 2}, 2, 0))) != 2 {
			t.Errorf("registered estimator not found: %v", err)
		}
	})
}

func mustAdv(a []float64, _ int) []float64 { return a }

func TestLossConfigValidate(t *testing.T) {
	ok := DefaultLossConfig()
	tests := []struct {
		name   string
		mutate func(*LossConfig)
		want   string // substring of the error; "" for valid
	}{
		{"default", func(*LossConfig) {}, ""},
		{"token-mean", func(c *LossConfig) { c.Agg = AggTokenMean }, ""},
		{"sum-norm", func(c *LossConfig) { c.Agg = AggSeqMeanTokenSumNorm; c.MaxTokens = 512 }, ""},
		{"sum-norm without max", func(c *LossConfig) { c.Agg = AggSeqMeanTokenSumNorm }, "max_tokens"},
		{"eps_low 1", func(c *LossConfig) { c.EpsLow = 1 }, "eps_low"},
		{"eps_low NaN", func(c *LossConfig) { c.EpsLow = math.NaN() }, "eps_low"},
		{"eps_high negative", func(c *LossConfig) { c.EpsHigh = -0.1 }, "eps_high"},
		{"beta negative", func(c *LossConfig) { c.Beta = -1 }, "beta"},
		{"unknown agg", func(c *LossConfig) { c.Agg = "mean" }, "token-mean"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mutate(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// oneToken is a one-token sequence with log-ratio lr = logp − old.
func oneToken(lr float64, adv float64) SeqInput {
	return SeqInput{LogP: []float32{0}, OldLogP: []float32{float32(-lr)}, Mask: []uint8{1}, Adv: adv}
}

func TestPolicyLossClipping(t *testing.T) {
	ln := math.Log
	tests := []struct {
		name     string
		epsHigh  float64
		seq      SeqInput
		loss     float64 // −min(rA, clip(r)A)
		coef     float64 // −A·r unclipped, 0 clipped
		clipFrac float64
	}{
		// A>0, r=1.5>1.2: clip(r)A = 1.2 < 1.5, clipped active, no gradient.
		{"A>0 r above", 0.2, oneToken(ln(1.5), 1), -1.2, 0, 1},
		// A<0, r=0.5<0.8: rA = −0.5 > −0.8 = clip(r)A, clipped active.
		{"A<0 r below", 0.2, oneToken(ln(0.5), -1), 0.8, 0, 1},
		// A>0, r=0.5: rA = 0.5 < 0.8, unclipped active, gradient −A·r.
		{"A>0 r below", 0.2, oneToken(ln(0.5), 1), -0.5, -0.5, 0},
		// A<0, r=1.5: rA = −1.5 < −1.2, unclipped active.
		{"A<0 r above", 0.2, oneToken(ln(1.5), -1), 1.5, 1.5, 0},
		// Inside the range both branches tie: unclipped, gradient −A·r.
		{"inside", 0.2, oneToken(0, 2), -2, -2, 0},
		{"A zero", 0.2, oneToken(ln(3), 0), 0, 0, 0},
		// Clip-higher: 1.25 < 1 + 0.28, not clipped.
		{"eps_high 0.28", 0.28, oneToken(ln(1.25), 1), -1.25, -1.25, 0},
		// log-ratio 30 clamps to 20: r = e^20, unclipped for A<0, but the
		// saturated clamp passes no gradient.
		{"clamped ratio", 0.2, oneToken(30, -1), math.Exp(20), 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := LossConfig{EpsLow: 0.2, EpsHigh: tc.epsHigh, Agg: AggTokenMean}
			out := PolicyLoss(cfg, []SeqInput{tc.seq})
			if !grpoClose(out.Loss, tc.loss, 1e-6) || out.PolicyLoss != out.Loss {
				t.Errorf("loss = %.9g (policy %.9g), want %.9g", out.Loss, out.PolicyLoss, tc.loss)
			}
			if !grpoClose(float64(out.Coef[0][0]), tc.coef, 1e-6) {
				t.Errorf("coef = %.9g, want %.9g", out.Coef[0][0], tc.coef)
			}
			if out.ClipFrac != tc.clipFrac || out.KL != 0 {
				t.Errorf("clip frac = %g, KL = %g; want %g, 0", out.ClipFrac, out.KL, tc.clipFrac)
			}
		})
	}
}

// aggSeqs is the worked two-sequence batch, with r = 1 everywhere so each
// token loss is −A:
//
//	seq 0: A = 1,  4 tokens, mask 1 1 1 0 → ℓ = −1, −1, −1 (sum −3, n = 3)
//	seq 1: A = −2, 2 tokens, mask 1 0     → ℓ = 2          (sum 2,  n = 1)
//
// seq-mean-token-mean: ((−3)/3 + 2/1)/2 = 0.5;  coef −1/(2·3), 2/(2·1)
// token-mean:          (−3 + 2)/4 = −0.25;      coef −1/4, 2/4
// sum-norm, max 4:     (−3/4 + 2/4)/2 = −0.125; coef −1/(2·4), 2/(2·4)
//
// With a third, fully masked sequence the sequence means divide by 3:
// (−1 + 2 + 0)/3 = 1/3 and (−3/4 + 2/4 + 0)/3 = −1/12; token-mean is
// unchanged.
func aggSeqs(withEmpty bool) []SeqInput {
	s := []SeqInput{
		{LogP: []float32{-1, -1, -1, -1}, OldLogP: []float32{-1, -1, -1, -1}, Mask: []uint8{1, 1, 1, 0}, Adv: 1},
		{LogP: []float32{-0.5, -0.5}, OldLogP: []float32{-0.5, -0.5}, Mask: []uint8{1, 0}, Adv: -2},
	}
	if withEmpty {
		s = append(s, SeqInput{LogP: []float32{-2, -3}, OldLogP: []float32{-1, -1}, Mask: []uint8{0, 0}, Adv: 5})
	}
	return s
}

func TestPolicyLossAggregation(t *testing.T) {
	tests := []struct {
		name       string
		agg        string
		withEmpty  bool
		loss       float64
		coef0      float64 // on each mask-1 token of seq 0
		coef1      float64 // on the mask-1 token of seq 1
		emptyCoefs bool
	}{
		{"seq-mean-token-mean", AggSeqMeanTokenMean, false, 0.5, -1.0 / 6, 1, false},
		{"token-mean", AggTokenMean, false, -0.25, -0.25, 0.5, false},
		{"seq-mean-token-sum-norm", AggSeqMeanTokenSumNorm, false, -0.125, -0.125, 0.25, false},
		{"seq-mean-token-mean with empty", AggSeqMeanTokenMean, true, 1.0 / 3, -1.0 / 9, 2.0 / 3, true},
		{"token-mean with empty", AggTokenMean, true, -0.25, -0.25, 0.5, true},
		{"sum-norm with empty", AggSeqMeanTokenSumNorm, true, -1.0 / 12, -1.0 / 12, 1.0 / 6, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Agg: tc.agg, MaxTokens: 4}
			out := PolicyLoss(cfg, aggSeqs(tc.withEmpty))
			if !grpoClose(out.Loss, tc.loss, 1e-12) {
				t.Errorf("loss = %.15g, want %.15g", out.Loss, tc.loss)
			}
			want := [][]float64{{tc.coef0, tc.coef0, tc.coef0, 0}, {tc.coef1, 0}}
			if tc.emptyCoefs {
				want = append(want, []float64{0, 0})
			}
			for i := range want {
				for j := range want[i] {
					if !grpoClose(float64(out.Coef[i][j]), want[i][j], 1e-6) {
						t.Errorf("coef[%d][%d] = %.9g, want %.9g", i, j, out.Coef[i][j], want[i][j])
					}
				}
			}
		})
	}
}

func TestPolicyLossKL(t *testing.T) {
	ln2 := math.Ln2
	tests := []struct {
		name   string
		d      float64 // ref − logp
		k3     float64 // exp(d) − d − 1
		dk3    float64 // 1 − exp(d)
		clamps bool
	}{
		{"d = ln 2", ln2, 1 - ln2, -1, false},
		{"d = -ln 2", -ln2, ln2 - 0.5, 0.5, false},
		{"d = 0", 0, 0, 0, false},
		// d = −25 clamps to −20: k3 = e^−20 + 19, no gradient.
		{"clamped", -25, math.Exp(-20) + 19, 0, true},
	}
	const beta = 0.5
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A = 0 and r = 1: only the KL term remains.
			s := SeqInput{LogP: []float32{-1}, OldLogP: []float32{-1}, RefLogP: []float32{float32(-1 + tc.d)}, Mask: []uint8{1}}
			out := PolicyLoss(LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: beta, Agg: AggTokenMean}, []SeqInput{s})
			if !grpoClose(out.KL, tc.k3, 1e-6) || !grpoClose(out.Loss, beta*tc.k3, 1e-6) || out.PolicyLoss != 0 {
				t.Errorf("KL = %.9g, loss = %.9g, policy = %g; want %.9g, %.9g, 0", out.KL, out.Loss, out.PolicyLoss, tc.k3, beta*tc.k3)
			}
			if !grpoClose(float64(out.Coef[0][0]), beta*tc.dk3, 1e-6) {
				t.Errorf("coef = %.9g, want %.9g", out.Coef[0][0], beta*tc.dk3)
			}
			// With beta 0, KL is still measured but adds no loss or gradient.
			out0 := PolicyLoss(LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Agg: AggTokenMean}, []SeqInput{s})
			if !grpoClose(out0.KL, tc.k3, 1e-6) || out0.Loss != 0 || out0.Coef[0][0] != 0 {
				t.Errorf("beta 0: KL = %g, loss = %g, coef = %g; want %g, 0, 0", out0.KL, out0.Loss, out0.Coef[0][0], tc.k3)
			}
		})
	}
}

func TestPolicyLossMaskedTokens(t *testing.T) {
	nan := float32(math.NaN())
	// Masked positions hold garbage that must never be read.
	s := SeqInput{
		LogP:    []float32{nan, -1, 1e30, -2},
		OldLogP: []float32{0, -1.1, nan, -2},
		RefLogP: []float32{nan, -0.9, -1e30, nan},
		Mask:    []uint8{0, 1, 0, 0},
		Adv:     0.7,
	}
	for _, agg := range []string{AggSeqMeanTokenMean, AggTokenMean, AggSeqMeanTokenSumNorm} {
		t.Run(agg, func(t *testing.T) {
			out := PolicyLoss(LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: 0.1, Agg: agg, MaxTokens: 1}, []SeqInput{s})
			for _, tk := range []int{0, 2, 3} {
				if c := out.Coef[0][tk]; c != 0 || math.Signbit(float64(c)) {
					t.Errorf("coef[%d] = %g, want exactly +0", tk, c)
				}
			}
			if math.IsNaN(out.Loss) || out.Coef[0][1] == 0 {
				t.Errorf("loss = %g, coef[1] = %g: the mask-1 token must count", out.Loss, out.Coef[0][1])
			}
		})
	}
}

func TestPolicyLossPanics(t *testing.T) {
	cfg := DefaultLossConfig()
	tests := []struct {
		name string
		cfg  LossConfig
		seq  SeqInput
	}{
		{"short logp", cfg, SeqInput{LogP: []float32{0}, OldLogP: []float32{0, 0}, Mask: []uint8{1, 1}}},
		{"missing ref", LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: 0.1, Agg: AggTokenMean},
			SeqInput{LogP: []float32{0}, OldLogP: []float32{0}, Mask: []uint8{1}}},
		{"short ref", cfg, SeqInput{LogP: []float32{0}, OldLogP: []float32{0}, RefLogP: []float32{}, Mask: []uint8{1}}},
		{"invalid config", LossConfig{Agg: "sum"}, SeqInput{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if msg := grpoPanics(func() { PolicyLoss(tc.cfg, []SeqInput{tc.seq}) }); !strings.Contains(msg, "trainer:") {
				t.Errorf("panic = %q, want a trainer: panic", msg)
			}
		})
	}
}

// randomSeqs draws sequences whose ratios stay at least 0.03 from the clip
// boundaries 0.8 and 1.2, so small perturbations never cross a kink.
func randomSeqs(rng *rand.Rand, n int) []SeqInput {
	seqs := make([]SeqInput, n)
	for i := range seqs {
		T := 3 + rng.Intn(6)
		s := SeqInput{LogP: make([]float32, T), OldLogP: make([]float32, T), RefLogP: make([]float32, T), Mask: make([]uint8, T), Adv: 4*rng.Float64() - 2}
		for t := range T {
			lp := -3 * rng.Float64()
			var d float64
			for {
				d = rng.Float64() - 0.5 // r in [0.61, 1.65]
				if r := math.Exp(d); math.Abs(r-0.8) > 0.03 && math.Abs(r-1.2) > 0.03 {
					break
				}
			}
			s.LogP[t], s.OldLogP[t] = float32(lp), float32(lp-d)
			s.RefLogP[t] = float32(lp + 2*rng.Float64() - 1)
			if rng.Intn(4) != 0 {
				s.Mask[t] = 1
			}
		}
		seqs[i] = s
	}
	return seqs
}

func TestPolicyLossGradientCheck(t *testing.T) {
	for _, agg := range []string{AggSeqMeanTokenMean, AggTokenMean, AggSeqMeanTokenSumNorm} {
		t.Run(agg, func(t *testing.T) {
			rng := rand.New(rand.NewSource(7))
			cfg := LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: 0.3, Agg: agg, MaxTokens: 10}
			seqs := randomSeqs(rng, 4)
			out := PolicyLoss(cfg, seqs)
			const h = 1e-3
			checked := 0
			for i, s := range seqs {
				for tk := range s.LogP {
					x := s.LogP[tk]
					hi, lo := float32(float64(x)+h), float32(float64(x)-h)
					s.LogP[tk] = hi
					lp := PolicyLoss(cfg, seqs).Loss
					s.LogP[tk] = lo
					lm := PolicyLoss(cfg, seqs).Loss
					s.LogP[tk] = x
					fd := (lp - lm) / (float64(hi) - float64(lo))
					if got := float64(out.Coef[i][tk]); math.Abs(got-fd) > 1e-5+1e-4*math.Abs(fd) {
						t.Errorf("seq %d token %d (mask %d): coef %.9g, finite difference %.9g", i, tk, s.Mask[tk], got, fd)
					}
					checked++
				}
			}
			if out.ClipFrac == 0 || out.ClipFrac == 1 {
				t.Errorf("clip frac %g: the draw should mix clipped and unclipped tokens", out.ClipFrac)
			}
			if checked < 10 {
				t.Fatalf("only %d tokens checked", checked)
			}
		})
	}
}

func ExampleGroupAdvantages() {
	// Two prompts, four rollouts each; the second group has no spread.
	adv, zero := GroupAdvantages([]float64{1, 0, 0, 1, 2, 2, 2, 2}, 4, true, 0)
	fmt.Printf("%.3f\nzero-spread groups: %d\n", adv, zero)
	// Output:
	// [0.866 -0.866 -0.866 0.866 0.000 0.000 0.000 0.000]
	// zero-spread groups: 1
}

func ExamplePolicyLoss() {
	// Token 0: r = 1. Token 1: r = e^0.5 ≈ 1.65 > 1.2 with A > 0, clipped.
	// Token 2 is a tool result (mask 0).
	seq := SeqInput{
		LogP:    []float32{-1, -0.5, -3},
		OldLogP: []float32{-1, -1, -1},
		Mask:    []uint8{1, 1, 0},
		Adv:     1,
	}
	out := PolicyLoss(DefaultLossConfig(), []SeqInput{seq})
	fmt.Printf("loss %.2f clip %.2f coef %.2f\n", out.Loss, out.ClipFrac, out.Coef[0])
	// Output:
	// loss -1.10 clip 0.50 coef [-0.50 0.00 0.00]
}
