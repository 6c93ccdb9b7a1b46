package policy

import "testing"

// logProbs is m.LogProbs(seqs), failing tb on an error.
func logProbs(tb testing.TB, m *Model, seqs [][]int) [][]float32 {
	tb.Helper()
	lp, err := m.LogProbs(seqs)
	if err != nil {
		tb.Fatal(err)
	}
	return lp
}

// meanHidden is m.MeanHidden(ids), failing tb on an error.
func meanHidden(tb testing.TB, m *Model, ids []int) []float32 {
	tb.Helper()
	h, err := m.MeanHidden(ids)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// merged is m.Merged(), failing tb on an error.
func merged(tb testing.TB, m *Model) *Model {
	tb.Helper()
	c, err := m.Merged()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
