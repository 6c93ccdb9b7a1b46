package policy

import (
	"math/rand"
	"testing"
)

// TestBackwardPacks: a batch of sequences of very different lengths is
// packed into fewer rows than padding each to the longest would take,
// and its log-probs and gradients are those of the sequences run one at
// a time (each alone in its graph), to float32 rounding.
func TestBackwardPacks(t *testing.T) {
	m := testModel(t, false, 81)
	rng := rand.New(rand.NewSource(82))
	seqs := randomSeqs(rng, m.Config.VocabSize, 40, 3, 5, 2, 7, 1, 17)
	coef := make([][]float32, len(seqs))
	for i, s := range seqs {
		coef[i] = make([]float32, len(s))
		for j := range coef[i] {
			coef[i][j] = float32(rng.NormFloat64())
		}
	}
	N, _ := packedShape(seqs, 40)
	if padded := paddedBatch(len(seqs)) * 48; N >= padded {
		t.Fatalf("packed into %d rows, padding would take %d", N, padded)
	}
	grads := func() []float32 {
		var g []float32
		for _, p := range m.Params {
			g = append(g, p.Grad...)
		}
		return g
	}
	m.ZeroGrad()
	logp, err := m.Backward(seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	packed := grads()
	m.ZeroGrad()
	for i := range seqs {
		lp, err := m.Backward(seqs[i:i+1], coef[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		if d := tensorDiff(logp[i], lp[0]); d > 1e-5 {
			t.Errorf("sequence %d (%d tokens): log-probs differ from its own run by %.3g", i, len(seqs[i]), d)
		}
	}
	if d := tensorDiff(packed, grads()); d > 1e-5 {
		t.Errorf("the packed batch's gradient differs from the sum of the sequences' by %.3g", d)
	}
	if d := maxAbsDiff(logp, refLogProbs(m, seqs)); d > 1e-4 {
		t.Errorf("log-probs differ from the reference by %.3g", d)
	}
	m.gs.pad = true // each sequence padded to the longest, as before packing
	m.ZeroGrad()
	padded, err := m.Backward(seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	for i := range seqs {
		if d := tensorDiff(padded[i], logp[i]); d > 1e-5 {
			t.Errorf("sequence %d: padded log-probs differ from packed by %.3g", i, d)
		}
	}
	if d := tensorDiff(grads(), packed); d > 1e-5 {
		t.Errorf("the padded batch's gradient differs from the packed one's by %.3g", d)
	}
}

func TestShapeBucket(t *testing.T) {
	for n, want := range map[int]int{1: 16, 16: 16, 17: 20, 32: 32, 33: 40, 57: 64, 65: 80, 100: 112, 129: 160, 1000: 1024, 1025: 1280} {
		if got := shapeBucket(n); got != want {
			t.Errorf("shapeBucket(%d) = %d, want %d", n, got, want)
		}
	}
}
