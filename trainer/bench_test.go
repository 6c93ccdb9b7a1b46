package trainer

import (
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// The speed benchmarks that scripts/peer_bench.py mirrors in PyTorch: the
// default tiny model with the default tokenizer's vocabulary (256 bytes,
// 256 merges, 9 special tokens).
const (
	benchVocab  = 521
	benchBatch  = 32 // training sequences
	benchLen    = 96 // tokens per training sequence
	benchSeqs   = 64 // sampled sequences
	benchPrompt = 32 // prompt tokens per sampled sequence
	benchSteps  = 64 // decoded tokens per sampled sequence
)

// benchModel is DefaultConfig().Model with vocab_size 521, weights from a
// fixed seed.
func benchModel(tb testing.TB) (*policy.Model, *rand.Rand) {
	tb.Helper()
	cfg := DefaultConfig().Model.Config
	cfg.VocabSize = benchVocab
	rng := rand.New(rand.NewSource(1))
	m, err := policy.New(cfg, rng)
	if err != nil {
		tb.Fatal(err)
	}
	return m, rng
}

// randomTokens returns n rows of T tokens drawn uniformly from [0, V).
func randomTokens(rng *rand.Rand, n, T, V int) [][]int {
	rows := make([][]int, n)
	for i := range rows {
		rows[i] = make([]int, T)
		for t := range rows[i] {
			rows[i][t] = rng.Intn(V)
		}
	}
	return rows
}

// tokenMeanCoef weights every predicted token (t ≥ 1) by −1/count, so
// Backward takes the gradient of the token-mean negative log-likelihood.
func tokenMeanCoef(seqs [][]int) [][]float32 {
	count := 0
	for _, s := range seqs {
		count += max(len(s)-1, 0)
	}
	coef := make([][]float32, len(seqs))
	for i, s := range seqs {
		coef[i] = make([]float32, len(s))
		for t := 1; t < len(s); t++ {
			coef[i][t] = -1 / float32(count)
		}
	}
	return coef
}

// trainStep is one full training step: ZeroGrad, Backward of the token-mean
// loss, AdamW update. It returns the loss before the update.
func trainStep(tb testing.TB, m *policy.Model, opt *AdamW, seqs [][]int, coef [][]float32, lr float64) float64 {
	m.ZeroGrad()
	logp, err := m.Backward(seqs, coef)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := opt.Step(lr); err != nil {
		tb.Fatal(err)
	}
	loss := 0.0
	for i, row := range logp {
		for t := 1; t < len(row); t++ {
			loss += float64(coef[i][t]) * float64(row[t])
		}
	}
	return loss
}

// BenchmarkTrainStep times one training step over 32 sequences of 96
// random tokens; tokens/s counts every token of the batch.
func BenchmarkTrainStep(b *testing.B) {
	m, rng := benchModel(b)
	seqs := randomTokens(rng, benchBatch, benchLen, benchVocab)
	coef := tokenMeanCoef(seqs)
	cfg := DefaultAdamWConfig()
	opt := NewAdamW(m.Backend(), m.Params, cfg)
	trainStep(b, m, opt, seqs, coef, 1e-4) // compile the graph
	b.ReportAllocs()
	for b.Loop() {
		trainStep(b, m, opt, seqs, coef, 1e-4)
	}
	b.ReportMetric(float64(benchBatch*benchLen*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkSampleKV times batched greedy decoding with the key/value
// cache: a 32-token prompt for each of 64 sequences in one Step, then 64
// Steps of one token each. tokens/s counts decoded tokens (64·64 per
// op); the time includes the prompt.
func BenchmarkSampleKV(b *testing.B) {
	m, rng := benchModel(b)
	prompts := randomTokens(rng, benchSeqs, benchPrompt, benchVocab)
	b.ReportAllocs()
	for b.Loop() {
		decodeGreedy(m, prompts, benchSteps)
	}
	b.ReportMetric(float64(benchSeqs*benchSteps*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// decodeGreedy feeds the prompts, then steps times the argmax of the last
// logits, and returns the decoded tokens.
func decodeGreedy(m *policy.Model, prompts [][]int, steps int) [][]int {
	s := m.NewSession(len(prompts), len(prompts[0])+steps)
	logits, err := s.Step(prompts)
	if err != nil {
		panic(err) // the session holds the prompts and steps
	}
	out := make([][]int, len(prompts))
	next := make([][]int, len(prompts))
	for range steps {
		for i, row := range logits {
			tok := argmaxRow(row)
			out[i] = append(out[i], tok)
			next[i] = []int{tok}
		}
		if logits, err = s.Step(next); err != nil {
			panic(err)
		}
	}
	return out
}

func argmaxRow(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// TestBenchWorkloads checks that the benchmarked workloads do real work:
// the training step lowers the loss on its batch, and greedy decoding
// with the cache agrees with a greedy choice from full-sequence log-probs.
func TestBenchWorkloads(t *testing.T) {
	t.Run("train step lowers loss", func(t *testing.T) {
		m, rng := benchModel(t)
		seqs := randomTokens(rng, 4, 24, benchVocab)
		coef := tokenMeanCoef(seqs)
		opt := NewAdamW(cpu.NewGo(), m.Params, DefaultAdamWConfig())
		first := trainStep(t, m, opt, seqs, coef, 3e-3)
		last := first
		for range 5 {
			last = trainStep(t, m, opt, seqs, coef, 3e-3)
		}
		if !(last < first-0.05) {
			t.Errorf("loss went from %.4f to %.4f after 5 steps; want a drop of more than 0.05", first, last)
		}
	})
	t.Run("greedy decode picks the most likely token", func(t *testing.T) {
		m, rng := benchModel(t)
		prompts := randomTokens(rng, 2, 5, benchVocab)
		out := decodeGreedy(m, prompts, 2)
		for i, p := range prompts {
			full := append(append([]int(nil), p...), out[i]...)
			for j := range out[i] {
				pos := len(p) + j
				alts := make([][]int, benchVocab) // full[:pos] then every token
				for v := range alts {
					alts[v] = append(append([]int(nil), full[:pos]...), v)
				}
				lp := logProbs(t, m, alts)
				if got, want := full[pos], argmaxAt(lp, pos); lp[got][pos] < lp[want][pos]-1e-5 {
					t.Errorf("sequence %d step %d: decoded token %d (log-prob %.5f), most likely is %d (%.5f)",
						i, j, got, lp[got][pos], want, lp[want][pos])
				}
			}
		}
	})
}

// argmaxAt returns the row whose entry at pos is largest.
func argmaxAt(rows [][]float32, pos int) int {
	best := 0
	for v, r := range rows {
		if r[pos] > rows[best][pos] {
			best = v
		}
	}
	return best
}
