package policy

import (
	"math/rand"
	"testing"
	"time"
)

// BenchmarkBackwardPacking measures Backward over a GRPO-like
// micro-batch (16 sequences of 40 to 170 tokens) of the default-size
// model, packed and padded to the longest (graphSettings.pad), taking
// turns in one run. It reports each one's tokens/s (real tokens, not
// padding) and packed over padded.
func BenchmarkBackwardPacking(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	seqs, coef := make([][]int, 16), make([][]float32, 16)
	tokens := 0
	for i := range seqs {
		n := 40 + rng.Intn(131)
		seqs[i], coef[i] = make([]int, n), make([]float32, n)
		for t := range seqs[i] {
			seqs[i][t], coef[i][t] = rng.Intn(benchConfig().VocabSize), float32(rng.NormFloat64())/100
		}
		tokens += n
	}
	models := [2]*Model{}
	for i := range models {
		m, err := New(benchConfig(), rand.New(rand.NewSource(4)))
		if err != nil {
			b.Fatal(err)
		}
		m.gs.pad = i == 1
		if _, err := m.Backward(seqs, coef); err != nil { // build the graph
			b.Fatal(err)
		}
		models[i] = m
	}
	var took [2]time.Duration
	b.ResetTimer()
	for b.Loop() {
		for i, m := range models {
			start := time.Now()
			if _, err := m.Backward(seqs, coef); err != nil {
				b.Fatal(err)
			}
			took[i] += time.Since(start)
		}
	}
	packed := float64(tokens*b.N) / took[0].Seconds()
	padded := float64(tokens*b.N) / took[1].Seconds()
	b.ReportMetric(packed, "packed-tokens/s")
	b.ReportMetric(padded, "padded-tokens/s")
	b.ReportMetric(packed/padded, "x-packed")
}
