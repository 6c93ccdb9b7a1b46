package trainer

import (
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy"
)

// TestToolOutputGetsZeroGradient: tokens with loss mask 0 (tool output)
// get a zero loss coefficient, and the weight gradient does not change
// whatever their log-probs are.
func TestToolOutputGetsZeroGradient(t *testing.T) {
	m, err := policy.New(policy.Config{VocabSize: 30, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6},
		rand.New(rand.NewSource(7)))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(8))
	seq := make([]int, 20)
	for i := range seq {
		seq[i] = rng.Intn(30)
	}
	// prompt | model | tool output | model
	mask := []uint8{0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}
	lp := logProbs(t, m, [][]int{seq})[0]
	grads := func(logp, old []float32) ([]float32, [][]float32) {
		out := PolicyLoss(LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Agg: AggSeqMeanTokenMean},
			[]SeqInput{{LogP: logp, OldLogP: old, Mask: mask, Adv: 1.5}})
		m.ZeroGrad()
		if _, err := m.Backward([][]int{seq}, out.Coef); err != nil {
			t.Fatal(err)
		}
		var g []float32
		for _, p := range m.Params {
			g = append(g, p.Grad...)
		}
		return g, out.Coef
	}
	base, coef := grads(lp, lp)
	for i, c := range coef[0] {
		if mask[i] == 0 && c != 0 {
			t.Errorf("token %d has mask 0 but coefficient %v", i, c)
		}
		if mask[i] == 1 && c == 0 {
			t.Errorf("token %d has mask 1 but coefficient 0", i)
		}
	}
	// Garbage log-probs on tool-output tokens change nothing.
	bad := append([]float32(nil), lp...)
	badOld := append([]float32(nil), lp...)
	for i := range mask {
		if mask[i] == 0 {
			bad[i], badOld[i] = float32(math.NaN()), 50
		}
	}
	again, _ := grads(bad, badOld)
	nonzero := 0
	for i := range base {
		if base[i] != again[i] {
			t.Fatalf("gradient %d changed from %v to %v when tool-output log-probs changed", i, base[i], again[i])
		}
		if base[i] != 0 {
			nonzero++
		}
	}
	if nonzero == 0 {
		t.Fatal("the gradient is all zero: the test proves nothing")
	}
}
