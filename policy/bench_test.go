package policy

import (
	"math/rand"
	"testing"
)

// benchConfig is the tiny default training model: V=265, C=64, F=176, L=2,
// H=4, K=2, tied embeddings.
func benchConfig() Config {
	return Config{
		VocabSize: 265, HiddenSize: 64, IntermediateSize: 176, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 512,
		RopeTheta: 10000, RMSNormEps: 1e-6, TieWordEmbeddings: true,
	}
}

func benchModel(b *testing.B) (*Model, *rand.Rand) {
	b.Helper()
	rng := rand.New(rand.NewSource(1))
	m, err := New(benchConfig(), rng)
	if err != nil {
		b.Fatal(err)
	}
	return m, rng
}

// benchBatch is 32 sequences of 96 tokens with coefficient −1/count.
func benchBatch(rng *rand.Rand, V int) ([][]int, [][]float32) {
	seqs := make([][]int, 32)
	coef := make([][]float32, 32)
	for i := range seqs {
		seqs[i] = make([]int, 96)
		coef[i] = make([]float32, 96)
		for t := range seqs[i] {
			seqs[i][t] = rng.Intn(V)
			coef[i][t] = -1.0 / 95
		}
	}
	return seqs, coef
}

func BenchmarkBackward(b *testing.B) {
	m, rng := benchModel(b)
	seqs, coef := benchBatch(rng, m.Config.VocabSize)
	if _, err := m.Backward(seqs, coef); err != nil { // build the graph
		b.Fatal(err)
	}
	b.ResetTimer()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Backward(seqs, coef); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(32*96*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkBackwardLong is a micro-batch of the function-calling run: 4
// sequences of 1536 tokens, where causal attention dominates.
func BenchmarkBackwardLong(b *testing.B) {
	m, rng := benchModel(b)
	m.Config.MaxPositionEmbeddings = 1536
	seqs := make([][]int, 4)
	coef := make([][]float32, 4)
	for i := range seqs {
		seqs[i], coef[i] = make([]int, 1536), make([]float32, 1536)
		for t := range seqs[i] {
			seqs[i][t], coef[i][t] = rng.Intn(m.Config.VocabSize), -1.0/1535
		}
	}
	if _, err := m.Backward(seqs, coef); err != nil { // build the graph
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Backward(seqs, coef); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(4*1536*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkLogProbs(b *testing.B) {
	m, rng := benchModel(b)
	seqs, _ := benchBatch(rng, m.Config.VocabSize)
	for b.Loop() {
		logProbs(b, m, seqs)
	}
	b.ReportMetric(float64(32*96*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkSample decodes 64 new tokens (greedy) for 64 sequences after a
// 32-token prompt; tokens/s counts decoded tokens.
func BenchmarkSample(b *testing.B) {
	m, rng := benchModel(b)
	const n, prompt, steps = 64, 32, 64
	feed := make([][]int, n)
	for i := range feed {
		feed[i] = make([]int, prompt)
		for t := range feed[i] {
			feed[i][t] = rng.Intn(m.Config.VocabSize)
		}
	}
	for b.Loop() {
		s := m.NewSession(n, prompt+steps)
		logits := mustStep(b, s, feed)
		for range steps {
			next := make([][]int, n)
			for i, row := range logits {
				next[i] = []int{argmax(row)}
			}
			logits = mustStep(b, s, next)
		}
	}
	b.ReportMetric(float64(n*steps*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// qwenShapes is Qwen2.5-0.5B's layer shapes with 4 layers and a 32000
// vocabulary: 88M weights.
func qwenShapes() Config {
	return Config{
		VocabSize: 32000, HiddenSize: 896, IntermediateSize: 4864, NumHiddenLayers: 4,
		NumAttentionHeads: 14, NumKeyValueHeads: 2, MaxPositionEmbeddings: 512,
		RopeTheta: 1e6, RMSNormEps: 1e-6, TieWordEmbeddings: true,
	}
}

// BenchmarkBackwardQwenShapes is Backward over 2 sequences of 256 tokens
// at Qwen2.5-0.5B layer shapes.
func BenchmarkBackwardQwenShapes(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	m, err := New(qwenShapes(), rng)
	if err != nil {
		b.Fatal(err)
	}
	seqs := make([][]int, 2)
	coef := make([][]float32, 2)
	for i := range seqs {
		seqs[i], coef[i] = make([]int, 256), make([]float32, 256)
		for t := range seqs[i] {
			seqs[i][t], coef[i][t] = rng.Intn(m.Config.VocabSize), -1.0/510
		}
	}
	if _, err := m.Backward(seqs, coef); err != nil { // build the graph
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Backward(seqs, coef); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(2*256*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkGraphMemory builds the training graph of the default model's
// largest GRPO batch (64 sequences of 256 tokens) with and without the
// memory plan and reports what each holds after a run (MiB).
func BenchmarkGraphMemory(b *testing.B) {
	cfg := Config{VocabSize: 399, HiddenSize: 64, IntermediateSize: 176, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, MaxPositionEmbeddings: 256, RopeTheta: 10000, RMSNormEps: 1e-6, TieWordEmbeddings: true}
	const B, T = 64, 256
	seqs, coef := make([][]int, B), make([][]float32, B)
	for i := range seqs {
		seqs[i], coef[i] = make([]int, T), make([]float32, T)
		for t := range seqs[i] {
			seqs[i][t], coef[i][t] = (i*7+t)%cfg.VocabSize, 1
		}
	}
	held := func(planned bool) float64 {
		m, err := New(cfg, rand.New(rand.NewSource(1)))
		if err != nil {
			b.Fatal(err)
		}
		m.gs.plan = planned
		if _, err := m.Backward(seqs, coef); err != nil {
			b.Fatal(err)
		}
		defer m.dropGraphs()
		N, T := packedShape(seqs, T)
		return float64(m.graphs.graphs[[2]int{N, T}].bytes) / (1 << 20)
	}
	var planned, whole float64
	for b.Loop() {
		planned, whole = held(true), held(false)
	}
	b.ReportMetric(planned, "planned-MiB")
	b.ReportMetric(whole, "unplanned-MiB")
}
