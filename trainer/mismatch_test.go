package trainer

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// handMismatch: sequence 0 has ratios 2, 1/2 and a masked token; sequence
// 1 has ratios 1.1 and 1.1.
func handMismatch() MismatchInput {
	ln := math.Log
	return MismatchInput{
		Train:   [][]float32{{float32(ln(2)) - 1, float32(-ln(2)) - 1, 5}, {float32(ln(1.1)) - 2, float32(ln(1.1)) - 2}},
		Sampler: [][]float32{{-1, -1, -9}, {-2, -2}},
		Mask:    [][]uint8{{1, 1, 0}, {1, 1}},
	}
}

func TestMismatchByHand(t *testing.T) {
	in := handMismatch()
	tok := TokenISWeights(in, 1.5)
	seq := SequenceISWeights(in, 1.5)
	// Token: min(2, 1.5), 1/2, masked 0; 1.1, 1.1. Sequence: 2·1/2 = 1; 1.21.
	for _, c := range []struct {
		name      string
		got, want [][]float64
	}{
		{"token", tok, [][]float64{{1.5, 0.5, 0}, {1.1, 1.1}}},
		{"sequence", seq, [][]float64{{1, 1, 0}, {1.21, 1.21}}},
	} {
		for i := range c.want {
			for j := range c.want[i] {
				if !grpoClose(c.got[i][j], c.want[i][j], 1e-6) {
					t.Errorf("%s weight[%d][%d] = %g, want %g", c.name, i, j, c.got[i][j], c.want[i][j])
				}
			}
		}
	}
	// Band [0.8, 1.25]: token drops 2 and 1/2; the sequence products 1
	// and 1.21 and the geometric means 1 and 1.1 all stay inside.
	for _, c := range []struct {
		mode string
		want string
	}{{RejectToken, "[[0 0 0] [1 1]]"}, {RejectSequence, "[[1 1 0] [1 1]]"}, {RejectGeometric, "[[1 1 0] [1 1]]"}} {
		if got := fmt.Sprint(RejectionMask(in, c.mode, 0.8, 1.25)); got != c.want {
			t.Errorf("%s mask %s, want %s", c.mode, got, c.want)
		}
	}
	// A band [0.9, 1.2]: the sequence product 1.21 leaves it, its
	// geometric mean 1.1 does not.
	if got := fmt.Sprint(RejectionMask(in, RejectSequence, 0.9, 1.2)); got != "[[1 1 0] [0 0]]" {
		t.Errorf("sequence mask %s", got)
	}
	st := Mismatch(in, nil, RejectionMask(in, RejectToken, 0.8, 1.25))
	if st.MaskedTokenFrac != 0.5 || st.MaskedSeqFrac != 0.5 || !grpoClose(st.MaxRatio, 2, 1e-6) {
		t.Errorf("masked %g/%g max ratio %g, want 0.5/0.5, 2", st.MaskedTokenFrac, st.MaskedSeqFrac, st.MaxRatio)
	}
	// k1: mean of −ln ρ = −(ln 2 − ln 2 + 2 ln 1.1)/4.
	if want := -2 * math.Log(1.1) / 4; !grpoClose(st.KLK1, want, 1e-6) {
		t.Errorf("kl k1 %g, want %g", st.KLK1, want)
	}
}

func TestMismatchEdges(t *testing.T) {
	empty := MismatchInput{Train: [][]float32{{1}}, Sampler: [][]float32{{2}}, Mask: [][]uint8{{0}}}
	if st := Mismatch(empty, nil, nil); st != (MismatchStats{ESS: 1}) {
		t.Errorf("no loss token: %+v, want zero stats with ESS 1", st)
	}
	same := MismatchInput{Train: [][]float32{{-1, -2}}, Sampler: [][]float32{{-1, -2}}, Mask: [][]uint8{{1, 1}}}
	if st := Mismatch(same, nil, nil); st.KLK1 != 0 || st.KLK3 != 0 || st.ESS != 1 || st.MaxRatio != 1 {
		t.Errorf("identical log-probs: %+v", st)
	}
	for name, f := range map[string]func(){
		"ragged": func() {
			TokenISWeights(MismatchInput{Train: [][]float32{{1}}, Sampler: [][]float32{{1, 2}}, Mask: [][]uint8{{1}}}, 2)
		},
		"cap":        func() { SequenceISWeights(same, 0) },
		"band":       func() { RejectionMask(same, RejectToken, 2, 1) },
		"mode":       func() { RejectionMask(same, "tokens", 0.5, 2) },
		"bad config": func() { CorrectRollouts(RolloutCorrectionConfig{IS: "token"}, same) },
	} {
		if msg := grpoPanics(f); !strings.Contains(msg, "trainer:") && !strings.Contains(msg, "config:") {
			t.Errorf("%s: panic %q", name, msg)
		}
	}
}

func TestRolloutCorrectionValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  RolloutCorrectionConfig
		want string
	}{
		{"default off", DefaultRolloutCorrectionConfig(), ""},
		{"token", RolloutCorrectionConfig{IS: "token", ISCap: 2}, ""},
		{"geometric", RolloutCorrectionConfig{RS: RejectGeometric, RSLow: 0.999, RSHigh: 1.001}, ""},
		{"low default", RolloutCorrectionConfig{RS: RejectToken, RSHigh: 2}, ""},
		{"bad is", RolloutCorrectionConfig{IS: "seq", ISCap: 2}, "rollout_correction.is"},
		{"inf cap", RolloutCorrectionConfig{IS: "token", ISCap: math.Inf(1)}, "is_cap"},
		{"bad rs", RolloutCorrectionConfig{RS: "seq", RSHigh: 2}, "rollout_correction.rs"},
		{"no high", RolloutCorrectionConfig{RS: RejectToken}, "rs_high"},
		{"negative low", RolloutCorrectionConfig{RS: RejectToken, RSLow: -1, RSHigh: 2}, "rs_low"},
		{"NaN low", RolloutCorrectionConfig{RS: RejectToken, RSLow: math.NaN(), RSHigh: 2}, "rs_low"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestCorrectRollouts(t *testing.T) {
	in := handMismatch()
	off := CorrectRollouts(DefaultRolloutCorrectionConfig(), in)
	if off.Weights != nil || fmt.Sprint(off.Mask) != fmt.Sprint(in.Mask) {
		t.Errorf("off: weights %v mask %v, want none and the input mask", off.Weights, off.Mask)
	}
	c := CorrectRollouts(RolloutCorrectionConfig{IS: "sequence", ISCap: 1.5, RS: RejectToken, RSHigh: 1.25}, in)
	if fmt.Sprint(c.Mask) != "[[0 0 0] [1 1]]" || !grpoClose(c.Weights[1][0], 1.21, 1e-6) {
		t.Errorf("mask %v weights %v", c.Mask, c.Weights)
	}
	if c.Stats.MaskedTokenFrac != 0.5 || c.Stats.Metrics()["mismatch/masked_token_frac"] != 0.5 {
		t.Errorf("stats %+v", c.Stats)
	}
}

func ExampleCorrectRollouts() {
	// The sampler gave the second token probability 0.5, the trainer 0.25:
	// ratio 0.5, outside the band [0.8, 1.25], so it leaves the loss.
	in := MismatchInput{
		Train:   [][]float32{{float32(math.Log(0.5)), float32(math.Log(0.25))}},
		Sampler: [][]float32{{float32(math.Log(0.5)), float32(math.Log(0.5))}},
		Mask:    [][]uint8{{1, 1}},
	}
	c := CorrectRollouts(RolloutCorrectionConfig{IS: "token", ISCap: 2, RS: RejectToken, RSHigh: 1.25}, in)
	fmt.Printf("weights %.2f mask %v kl_k1 %.3f masked %.2f\n", c.Weights[0], c.Mask[0], c.Stats.KLK1, c.Stats.MaskedTokenFrac)
	// Output:
	// weights [1.00 0.50] mask [1 0] kl_k1 0.347 masked 0.50
}
