package trainer

import (
	"testing"

	"github.com/artist-rl/artist/policy"
)

// logProbs is m.LogProbs(seqs), failing tb on an error.
func logProbs(tb testing.TB, m *policy.Model, seqs [][]int) [][]float32 {
	tb.Helper()
	lp, err := m.LogProbs(seqs)
	if err != nil {
		tb.Fatal(err)
	}
	return lp
}

// adamStep is o.Step(lr), failing tb on an error.
func adamStep(tb testing.TB, o *AdamW, lr float64) float64 {
	tb.Helper()
	n, err := o.Step(lr)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
