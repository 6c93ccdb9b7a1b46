package trainer

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verlGolden is testdata/verl_golden.json, written by verl_golden.py from
// verl's compute_policy_loss, kl_penalty("low_var_kl") and agg_loss, with
// gradients from torch autograd.
type verlGolden struct {
	Loss []struct {
		Name   string `json:"name"`
		Config struct {
			EpsLow     float64 `json:"eps_low"`
			EpsHigh    float64 `json:"eps_high"`
			ClipRatioC float64 `json:"clip_ratio_c"`
			Beta       float64 `json:"beta"`
			KLClamp    float64 `json:"kl_clamp"`
			Agg        string  `json:"agg"`
			MaxTokens  int     `json:"max_tokens"`
			EmptySeqs  string  `json:"empty_seqs"`
		} `json:"config"`
		Seqs []struct {
			LogP []float64 `json:"logp"`
			Old  []float64 `json:"old"`
			Ref  []float64 `json:"ref"`
			Mask []uint8   `json:"mask"`
			Adv  float64   `json:"adv"`
		} `json:"seqs"`
		Want struct {
			Loss          float64     `json:"loss"`
			PolicyLoss    float64     `json:"policy_loss"`
			KL            float64     `json:"kl"`
			ClipFrac      float64     `json:"clip_frac"`
			ClipFracLower float64     `json:"clip_frac_lower"`
			Coef          [][]float64 `json:"coef"`
		} `json:"want"`
	} `json:"loss"`
	Overlong []struct {
		Length  int     `json:"length"`
		MaxLen  int     `json:"max_len"`
		Buffer  int     `json:"buffer"`
		Penalty float64 `json:"penalty"`
		Want    float64 `json:"want"`
	} `json:"overlong"`
}

func readVerlGolden(t *testing.T) verlGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "verl_golden.json"))
	if err != nil {
		t.Fatalf("%v (regenerate with /usr/bin/python3 testdata/verl_golden.py)", err)
	}
	var g verlGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Loss) < 20 || len(g.Overlong) < 20 {
		t.Fatalf("golden file holds %d loss and %d overlong cases, want at least 20 each", len(g.Loss), len(g.Overlong))
	}
	return g
}

func float32s(xs []float64) []float32 {
	if xs == nil {
		return nil
	}
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = float32(x)
	}
	return out
}

// TestPolicyLossMatchesVerl checks every option of LossConfig against
// verl's formulas: loss, its policy part, k3, both clip fractions, and the
// gradient of every token.
func TestPolicyLossMatchesVerl(t *testing.T) {
	g := readVerlGolden(t)
	seen := map[string]bool{}
	for _, tc := range g.Loss {
		t.Run(tc.Name, func(t *testing.T) {
			c := tc.Config
			cfg := LossConfig{EpsLow: c.EpsLow, EpsHigh: c.EpsHigh, ClipRatioC: c.ClipRatioC, Beta: c.Beta,
				KLClamp: c.KLClamp, Agg: c.Agg, MaxTokens: c.MaxTokens, EmptySeqs: c.EmptySeqs}
			seqs := make([]SeqInput, len(tc.Seqs))
			for i, s := range tc.Seqs {
				seqs[i] = SeqInput{LogP: float32s(s.LogP), OldLogP: float32s(s.Old), RefLogP: float32s(s.Ref), Mask: s.Mask, Adv: s.Adv}
			}
			out := PolicyLoss(cfg, seqs)
			w := tc.Want
			// verl divides a sequence's sum by n + 1e-8: a relative
			// difference of 1e-8, within the 1e-7 asked here.
			for _, v := range []struct {
				name      string
				got, want float64
			}{{"loss", out.Loss, w.Loss}, {"policy loss", out.PolicyLoss, w.PolicyLoss}, {"kl", out.KL, w.KL},
				{"clip frac", out.ClipFrac, w.ClipFrac}, {"clip frac lower", out.ClipFracLower, w.ClipFracLower}} {
				if !grpoClose(v.got, v.want, 1e-7) {
					t.Errorf("%s = %.12g, verl %.12g", v.name, v.got, v.want)
				}
			}
			for i := range w.Coef {
				for j, want := range w.Coef[i] {
					if got := float64(out.Coef[i][j]); math.Abs(got-want) > 1e-9+1e-6*math.Abs(want) {
						t.Errorf("coef[%d][%d] = %.9g, verl gradient %.9g", i, j, got, want)
					}
				}
			}
			seen["dual"] = seen["dual"] || w.ClipFracLower > 0
			seen["agg "+c.Agg+" "+c.EmptySeqs] = true
		})
	}
	for _, k := range []string{"dual", "agg seq-mean-token-mean exclude", "agg token-mean exclude", "agg seq-mean-token-sum-norm exclude"} {
		if !seen[k] {
			t.Errorf("no golden case exercises %s", k)
		}
	}
}

func TestOverlongPenaltyMatchesVerl(t *testing.T) {
	for _, tc := range readVerlGolden(t).Overlong {
		got := OverlongPenalty(tc.Length, tc.MaxLen, tc.Buffer, tc.Penalty)
		if !grpoClose(got, tc.Want, 1e-15) {
			t.Errorf("OverlongPenalty(%d, %d, %d, %g) = %.17g, verl %.17g", tc.Length, tc.MaxLen, tc.Buffer, tc.Penalty, got, tc.Want)
		}
	}
}

func TestOverlongPenalty(t *testing.T) {
	for i, tc := range []struct {
		length, maxLen, buffer int
		penalty, want          float64
	}{
		{80, 96, 16, 1, 0}, // at the start of the buffer
		{81, 96, 16, 1, -1.0 / 16},
		{88, 96, 16, 1, -0.5},    // half way
		{96, 96, 16, 1, -1},      // at the budget
		{97, 96, 16, 1, -1},      // past it: capped at −P
		{200, 96, 16, 0.5, -0.5}, // scaled
		{10, 10, 10, 2, -2},      // buffer as long as the budget
		{1, 10, 10, 2, -0.2},
	} {
		if got := OverlongPenalty(tc.length, tc.maxLen, tc.buffer, tc.penalty); !grpoClose(got, tc.want, 1e-15) {
			t.Errorf("case %d: OverlongPenalty(%d, %d, %d, %g) = %g, want %g", i, tc.length, tc.maxLen, tc.buffer, tc.penalty, got, tc.want)
		}
	}
}

// TestPolicyLossVariantsByHand works each option on one token, where the
// numbers can be checked on paper.
func TestPolicyLossVariantsByHand(t *testing.T) {
	ln := math.Log
	tests := []struct {
		name              string
		cfg               LossConfig
		seq               SeqInput
		loss, coef        float64
		clipFrac, lowFrac float64
	}{
		// A = −1, r = 4: min(−4, −1.2) = −4 is the unclipped branch; the
		// dual clip c·A = −3 > −4 caps the loss at 3, no gradient.
		{"dual clip active", LossConfig{EpsLow: 0.2, EpsHigh: 0.2, ClipRatioC: 3}, oneToken(ln(4), -1), 3, 0, 0, 1},
		// r = 2 < c: the unclipped branch −A·r = 2 stays, gradient 2.
		{"dual clip below c", LossConfig{EpsLow: 0.2, EpsHigh: 0.2, ClipRatioC: 3}, oneToken(ln(2), -1), 2, 2, 0, 0},
		// Off (c = 0), the same token loses 4.
		{"dual clip off", LossConfig{EpsLow: 0.2, EpsHigh: 0.2}, oneToken(ln(4), -1), 4, 4, 0, 0},
		// A > 0 is never dual-clipped: r = 4 clips to 1.2.
		{"dual clip A>0", LossConfig{EpsLow: 0.2, EpsHigh: 0.2, ClipRatioC: 3}, oneToken(ln(4), 1), -1.2, 0, 1, 0},
		// A < 0, r = 0.5: the ordinary clip (0.8·A) is active, not the dual.
		{"dual clip r below", LossConfig{EpsLow: 0.2, EpsHigh: 0.2, ClipRatioC: 3}, oneToken(ln(0.5), -1), 0.8, 0, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Agg = AggTokenMean
			out := PolicyLoss(tc.cfg, []SeqInput{tc.seq})
			if !grpoClose(out.Loss, tc.loss, 1e-6) || !grpoClose(float64(out.Coef[0][0]), tc.coef, 1e-6) {
				t.Errorf("loss %.9g coef %.9g, want %.9g %.9g", out.Loss, out.Coef[0][0], tc.loss, tc.coef)
			}
			if out.ClipFrac != tc.clipFrac || out.ClipFracLower != tc.lowFrac {
				t.Errorf("clip frac %g lower %g, want %g %g", out.ClipFrac, out.ClipFracLower, tc.clipFrac, tc.lowFrac)
			}
		})
	}
}

func TestKLClampByHand(t *testing.T) {
	const beta = 0.5
	tests := []struct {
		name    string
		d       float64 // ref − logp
		clamp   float64
		k3, dk3 float64 // clamped k3 and ∂k3/∂logp
	}{
		// d = ln 20: k3 = 20 − ln 20 − 1 ≈ 16.0 > 10, clamped, no gradient.
		{"saturated", math.Log(20), 10, 10, 0},
		{"unclamped", math.Log(20), 0, 19 - math.Log(20), -19},
		// d = ln 2: k3 = 1 − ln 2 < 10, untouched, gradient 1 − 2.
		{"inside", math.Ln2, 10, 1 - math.Ln2, -1},
		{"tight clamp", math.Ln2, 0.1, 0.1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := SeqInput{LogP: []float32{-1}, OldLogP: []float32{-1}, RefLogP: []float32{float32(-1 + tc.d)}, Mask: []uint8{1}}
			out := PolicyLoss(LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: beta, KLClamp: tc.clamp, Agg: AggTokenMean}, []SeqInput{s})
			if !grpoClose(out.KL, tc.k3, 1e-6) || !grpoClose(out.Loss, beta*tc.k3, 1e-6) {
				t.Errorf("KL %.9g loss %.9g, want %.9g %.9g", out.KL, out.Loss, tc.k3, beta*tc.k3)
			}
			if !grpoClose(float64(out.Coef[0][0]), beta*tc.dk3, 1e-6) {
				t.Errorf("coef %.9g, want %.9g", out.Coef[0][0], beta*tc.dk3)
			}
		})
	}
}

// TestEmptySeqsConventions states what each aggregation does with a
// sequence that has no loss token (aggSeqs: two sequences with tokens and
// one without), under both conventions.
func TestEmptySeqsConventions(t *testing.T) {
	tests := []struct {
		agg, empty string
		loss       float64
	}{
		// count: the empty sequence is a third of the sequence mean.
		{AggSeqMeanTokenMean, EmptyCount, (-1 + 2 + 0) / 3.0},
		{AggSeqMeanTokenMean, "", (-1 + 2 + 0) / 3.0},
		// exclude: the mean runs over the two sequences with tokens.
		{AggSeqMeanTokenMean, EmptyExclude, (-1 + 2) / 2.0},
		{AggSeqMeanTokenSumNorm, EmptyCount, (-3.0/4 + 2.0/4) / 3},
		{AggSeqMeanTokenSumNorm, EmptyExclude, (-3.0/4 + 2.0/4) / 2},
		// token-mean divides by the batch's loss tokens either way.
		{AggTokenMean, EmptyCount, (-3 + 2) / 4.0},
		{AggTokenMean, EmptyExclude, (-3 + 2) / 4.0},
	}
	for _, tc := range tests {
		t.Run(tc.agg+"/"+tc.empty, func(t *testing.T) {
			cfg := LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Agg: tc.agg, MaxTokens: 4, EmptySeqs: tc.empty}
			out := PolicyLoss(cfg, aggSeqs(true))
			if !grpoClose(out.Loss, tc.loss, 1e-12) {
				t.Errorf("loss %.15g, want %.15g", out.Loss, tc.loss)
			}
			for j, c := range out.Coef[2] {
				if c != 0 {
					t.Errorf("empty sequence coef[%d] = %g, want 0", j, c)
				}
			}
		})
	}
	// Only empty sequences: loss 0 and no gradient under every mode, with
	// no division by zero.
	for _, agg := range []string{AggSeqMeanTokenMean, AggTokenMean, AggSeqMeanTokenSumNorm} {
		for _, empty := range []string{EmptyCount, EmptyExclude} {
			s := aggSeqs(true)[2:]
			out := PolicyLoss(LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Agg: agg, MaxTokens: 4, EmptySeqs: empty}, s)
			if out.Loss != 0 || out.Coef[0][0] != 0 || out.Coef[0][1] != 0 || out.KL != 0 || out.ClipFrac != 0 {
				t.Errorf("%s/%s, all empty: %+v, want all 0", agg, empty, out)
			}
		}
	}
}

// TestVariantsOffIsToday checks that the options at their defaults leave
// the loss bit for bit as it was.
func TestVariantsOffIsToday(t *testing.T) {
	for _, agg := range []string{AggSeqMeanTokenMean, AggTokenMean, AggSeqMeanTokenSumNorm} {
		empty := aggSeqs(true)[2]
		empty.RefLogP = []float32{-1, -1}
		seqs := append(randomSeqs(rand.New(rand.NewSource(11)), 5), empty)
		base := LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.3, Agg: agg, MaxTokens: 10}
		def := base
		def.EmptySeqs = EmptyCount
		a, b := PolicyLoss(base, seqs), PolicyLoss(def, seqs)
		if fmt.Sprint(a) != fmt.Sprint(b) || a.ClipFracLower != 0 {
			t.Errorf("%s: defaults changed the loss: %v vs %v", agg, a, b)
		}
		// A dual clip and a KL clamp that nothing reaches change nothing.
		far := base
		far.ClipRatioC, far.KLClamp = 1e6, 1e6
		if c := PolicyLoss(far, seqs); fmt.Sprint(a) != fmt.Sprint(c) {
			t.Errorf("%s: unreached clips changed the loss: %v vs %v", agg, a, c)
		}
	}
}

func TestLossConfigValidateVariants(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*LossConfig)
		want   string
	}{
		{"dual clip 3", func(c *LossConfig) { c.ClipRatioC = 3 }, ""},
		{"dual clip 1", func(c *LossConfig) { c.ClipRatioC = 1 }, "clip_ratio_c"},
		{"dual clip 0.5", func(c *LossConfig) { c.ClipRatioC = 0.5 }, "clip_ratio_c"},
		{"dual clip inf", func(c *LossConfig) { c.ClipRatioC = math.Inf(1) }, "clip_ratio_c"},
		{"kl clamp 10", func(c *LossConfig) { c.KLClamp = 10 }, ""},
		{"kl clamp negative", func(c *LossConfig) { c.KLClamp = -1 }, "kl_clamp"},
		{"kl clamp NaN", func(c *LossConfig) { c.KLClamp = math.NaN() }, "kl_clamp"},
		{"exclude", func(c *LossConfig) { c.EmptySeqs = EmptyExclude }, ""},
		{"unknown empty", func(c *LossConfig) { c.EmptySeqs = "drop" }, "empty_seqs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultLossConfig()
			tc.mutate(&c)
			err := c.Validate()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func ExampleOverlongPenalty() {
	// A 96-token budget with a 16-token buffer: no penalty up to 80 tokens,
	// then a linear one down to −1 at the budget.
	for _, n := range []int{80, 84, 88, 96} {
		fmt.Printf("%d tokens: %.2f\n", n, OverlongPenalty(n, 96, 16, 1))
	}
	// Output:
	// 80 tokens: 0.00
	// 84 tokens: -0.25
	// 88 tokens: -0.50
	// 96 tokens: -1.00
}
