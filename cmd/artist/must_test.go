package main

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
