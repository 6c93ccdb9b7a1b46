package policy

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// batchFor draws a batch whose lengths span two pad blocks, with a
// one-token sequence (no targets), and random coefficients.
func batchFor(seed int64, V int) ([][]int, [][]float32) {
	rng := rand.New(rand.NewSource(seed))
	seqs := randomSeqs(rng, V, 7, 19, 1, 12)
	coef := make([][]float32, len(seqs))
	for i, s := range seqs {
		coef[i] = make([]float32, len(s))
		for t := range coef[i] {
			coef[i][t] = float32(rng.NormFloat64())
		}
	}
	return seqs, coef
}

// causalBlock is the row block of the cpu backends' attention; the long
// case spans several.
const causalBlock = 64

func TestBackwardGradCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		tied bool
		long bool // sequences span several causal blocks
	}{{"untied", false, false}, {"tied", true, false}, {"long", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			m := testModel(t, tc.tied, 1)
			seqs, coef := batchFor(2, m.Config.VocabSize)
			if tc.long {
				m.Config.MaxPositionEmbeddings = 4 * causalBlock
				rng := rand.New(rand.NewSource(4))
				seqs = randomSeqs(rng, m.Config.VocabSize, 2*causalBlock+21, causalBlock+3)
				coef = [][]float32{make([]float32, len(seqs[0])), make([]float32, len(seqs[1]))}
				for i := range coef {
					for j := range coef[i] {
						coef[i][j] = float32(rng.NormFloat64()) / 8
					}
				}
			}
			if _, err := m.Backward(seqs, coef); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(3))
			worstRel, worstAbs, worstAt := 0.0, 0.0, ""
			for _, p := range m.Params {
				for _, j := range sampleEntries(rng, p, 5) {
					num := numericGrad(m, p, j, seqs, coef)
					ana := float64(p.Grad[j])
					abs := math.Abs(ana - num)
					rel := abs / math.Max(math.Max(math.Abs(ana), math.Abs(num)), 1e-12)
					if abs > 1e-4 && rel > 2e-3 {
						t.Errorf("%s[%d]: analytic %.6g, numeric %.6g (rel %.2g)", p.Name, j, ana, num, rel)
					}
					if rel > worstRel {
						worstRel, worstAbs, worstAt = rel, abs, fmt.Sprintf("%s[%d]", p.Name, j)
					}
				}
			}
			t.Logf("worst relative error %.3g (abs %.3g) at %s", worstRel, worstAbs, worstAt)
		})
	}
}

// sampleEntries picks n random entries of p plus its largest gradient.
func sampleEntries(rng *rand.Rand, p *Param, n int) []int {
	idx := []int{0}
	for j, g := range p.Grad {
		if math.Abs(float64(g)) > math.Abs(float64(p.Grad[idx[0]])) {
			idx[0] = j
		}
	}
	for range n {
		idx = append(idx, rng.Intn(len(p.Data)))
	}
	return idx
}

// numericGrad is the central difference of the float64 reference objective.
func numericGrad(m *Model, p *Param, j int, seqs [][]int, coef [][]float32) float64 {
	const eps = 1e-3
	x := p.Data[j]
	hi, lo := float32(float64(x)+eps), float32(float64(x)-eps)
	p.Data[j] = hi
	fHi := refObjective(m, seqs, coef)
	p.Data[j] = lo
	fLo := refObjective(m, seqs, coef)
	p.Data[j] = x
	return (fHi - fLo) / (float64(hi) - float64(lo))
}

func TestBackwardLogProbs(t *testing.T) {
	for _, tied := range []bool{false, true} {
		name := map[bool]string{false: "untied", true: "tied"}[tied]
		t.Run(name, func(t *testing.T) {
			m := testModel(t, tied, 4)
			seqs, coef := batchFor(5, m.Config.VocabSize)
			logp, err := m.Backward(seqs, coef)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range seqs {
				if len(logp[i]) != len(s) || (len(s) > 0 && logp[i][0] != 0) {
					t.Fatalf("row %d: got %d log-probs starting %v for %d tokens", i, len(logp[i]), logp[i], len(s))
				}
			}
			plain := logProbs(t, m, seqs)
			ref := refLogProbs(m, seqs)
			if d := maxAbsDiff(logp, ref); d > 1e-4 {
				t.Errorf("Backward vs reference: max abs diff %.3g", d)
			}
			var d float64
			for i := range plain {
				for j := range plain[i] {
					d = math.Max(d, math.Abs(float64(plain[i][j]-logp[i][j])))
				}
			}
			if d > 1e-4 {
				t.Errorf("Backward vs LogProbs: max abs diff %.3g", d)
			}
			t.Logf("Backward vs LogProbs: max abs diff %.3g", d)
		})
	}
}

// gradsOf runs Backward on a zeroed model and returns a copy of all grads.
func gradsOf(t *testing.T, m *Model, seqs [][]int, coef [][]float32, times int) [][]float32 {
	t.Helper()
	m.ZeroGrad()
	for range times {
		if _, err := m.Backward(seqs, coef); err != nil {
			t.Fatal(err)
		}
	}
	out := make([][]float32, len(m.Params))
	for i, p := range m.Params {
		out[i] = append([]float32(nil), p.Grad...)
	}
	return out
}

func TestBackwardGradientAlgebra(t *testing.T) {
	m := testModel(t, true, 6)
	seqs, c1 := batchFor(7, m.Config.VocabSize)
	_, c2 := batchFor(8, m.Config.VocabSize)
	scaled := func(a float32, x [][]float32, b float32, y [][]float32) [][]float32 {
		out := make([][]float32, len(x))
		for i := range x {
			out[i] = make([]float32, len(x[i]))
			for t := range x[i] {
				out[i][t] = a*x[i][t] + b*y[i][t]
			}
		}
		return out
	}
	g1 := gradsOf(t, m, seqs, c1, 1)
	g2 := gradsOf(t, m, seqs, c2, 1)
	cases := []struct {
		name string
		coef [][]float32
		runs int
		want func(i, j int) float32
		tol  float64
	}{
		{"zero coef gives zero gradient", scaled(0, c1, 0, c2), 1, func(int, int) float32 { return 0 }, 0},
		{"linear in coef", scaled(2, c1, -3, c2), 1, func(i, j int) float32 { return 2*g1[i][j] - 3*g2[i][j] }, 1e-4},
		{"two calls accumulate", c1, 2, func(i, j int) float32 { return 2 * g1[i][j] }, 1e-6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := gradsOf(t, m, seqs, tc.coef, tc.runs)
			for i, p := range m.Params {
				for j, g := range got[i] {
					want := tc.want(i, j)
					if d := math.Abs(float64(g - want)); d > tc.tol*math.Max(1, math.Abs(float64(want))) {
						t.Fatalf("%s[%d] = %g, want %g", p.Name, j, g, want)
					}
				}
			}
		})
	}
}

func TestBackwardSharesWeights(t *testing.T) {
	m := testModel(t, false, 9)
	seqs, coef := batchFor(10, m.Config.VocabSize)
	before := make([][]float32, len(m.Params))
	for i, p := range m.Params {
		before[i] = append([]float32(nil), p.Data...)
	}
	if _, err := m.Backward(seqs, coef); err != nil {
		t.Fatal(err)
	}
	if len(m.graphs.graphs) != 1 {
		t.Fatalf("Backward built %d graphs, want 1", len(m.graphs.graphs))
	}
	var tg *trainGraph
	for _, g := range m.graphs.graphs {
		tg = g
	}
	for i, p := range m.Params {
		for j := range p.Data {
			if p.Data[j] != before[i][j] {
				t.Fatalf("Backward changed %s[%d]", p.Name, j)
			}
		}
		if d := tg.params[i].Value().Data().([]float32); &d[0] != &p.Data[0] {
			t.Fatalf("graph holds a copy of %s", p.Name)
		}
	}
	for name, update := range map[string]func(){
		"in-place update": func() {
			for _, p := range m.Params {
				for j := range p.Data {
					p.Data[j] *= 0.9
				}
			}
		},
		"replaced slice": func() { m.Layers[1].Down.Data = append([]float32(nil), m.Layers[1].Down.Data...) },
	} {
		update()
		logp, err := m.Backward(seqs, coef)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(logp, refLogProbs(m, seqs)); d > 1e-4 {
			t.Errorf("%s: Backward did not see the new weights (max abs diff %.3g)", name, d)
		}
	}
}

func TestBackwardErrors(t *testing.T) {
	m := testModel(t, true, 11)
	long := make([]int, m.Config.MaxPositionEmbeddings+1)
	cases := []struct {
		name string
		seqs [][]int
		coef [][]float32
		want string
	}{
		{"rows differ", [][]int{{1, 2}}, nil, "coefficient rows"},
		{"lengths differ", [][]int{{1, 2}}, [][]float32{{0}}, "coefficients"},
		{"token out of range", [][]int{{1, 40}}, [][]float32{{0, 0}}, "outside the vocabulary"},
		{"negative token", [][]int{{-1}}, [][]float32{{0}}, "outside the vocabulary"},
		{"too long", [][]int{long}, [][]float32{make([]float32, len(long))}, "max_position_embeddings"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := m.Backward(tc.seqs, tc.coef)
			if err == nil || !strings.HasPrefix(err.Error(), "policy: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestBackwardGraphCache(t *testing.T) {
	m := testModel(t, true, 12)
	rng := rand.New(rand.NewSource(13))
	for _, n := range []int{3, 20, 3, 40, 50, 60, 3} {
		seqs := randomSeqs(rng, m.Config.VocabSize, n, n/2+1)
		coef := [][]float32{make([]float32, n), make([]float32, n/2+1)}
		logp, err := m.Backward(seqs, coef)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(logp, refLogProbs(m, seqs)); d > 1e-4 {
			t.Fatalf("length %d: max abs diff %.3g", n, d)
		}
	}
	if n := len(m.graphs.graphs); n != maxGraphs {
		t.Errorf("cache holds %d graphs, want %d", n, maxGraphs)
	}
	N, T := packedShape([][]int{make([]int, 3), make([]int, 2)}, 3)
	if _, ok := m.graphs.graphs[[2]int{N, T}]; !ok {
		t.Errorf("the most recently used graph was evicted")
	}
}

// TestBackwardBatchPadding: a batch's packing and its padding rows change
// neither the log-probs nor the gradient of the real rows, and each batch
// shape builds one graph.
func TestBackwardBatchPadding(t *testing.T) {
	m := testModel(t, false, 14)
	rng := rand.New(rand.NewSource(15))
	seqs := randomSeqs(rng, m.Config.VocabSize, 12, 9, 7)
	coef := make([][]float32, len(seqs))
	for i, s := range seqs {
		coef[i] = make([]float32, len(s))
		for j := range coef[i] {
			coef[i][j] = float32(rng.NormFloat64())
		}
	}
	grads := func(n int) ([]float32, [][]float32) {
		m.ZeroGrad()
		logp, err := m.Backward(seqs[:n], coef[:n])
		if err != nil {
			t.Fatal(err)
		}
		var g []float32
		for _, p := range m.Params {
			g = append(g, p.Grad...)
		}
		return g, logp
	}
	g3, lp3 := grads(3)
	if d := maxAbsDiff(lp3, refLogProbs(m, seqs)); d > 1e-4 {
		t.Fatalf("padded batch: log-probs off by %.3g", d)
	}
	// The gradient of the three rows is the sum of the single-row ones.
	sum := make([]float32, len(g3))
	for i := range seqs {
		m.ZeroGrad()
		if _, err := m.Backward(seqs[i:i+1], coef[i:i+1]); err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, p := range m.Params {
			for _, v := range p.Grad {
				sum[k] += v
				k++
			}
		}
	}
	for i := range g3 {
		if d := math.Abs(float64(g3[i] - sum[i])); d > 1e-4*math.Max(1, math.Abs(float64(sum[i]))) {
			t.Fatalf("gradient %d: batch %v, sum of rows %v", i, g3[i], sum[i])
		}
	}
	if n := len(m.graphs.graphs); n != 2 {
		t.Errorf("batches of 1 and 3 sequences built %d graphs, want 2 ((16, 16), and (28, 16): 28 tokens)", n)
	}
}

func TestPaddedBatch(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 3: 4, 5: 8, 8: 8, 9: 16, 17: 24} {
		if got := paddedBatch(n); got != want {
			t.Errorf("paddedBatch(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestBackwardSavedOrRecomputed: the values forward kernels save for their
// backward kernels (attention probabilities, exp(−gate), log-sum-exps)
// change no bit of the log-probs or gradients.
func TestBackwardSavedOrRecomputed(t *testing.T) {
	run := func(save bool, probs int) ([][]float32, [][]float32) {
		m := testModel(t, false, 31)
		m.gs.save, m.gs.maxSavedProbs = save, probs
		seqs, coef := batchFor(32, m.Config.VocabSize)
		logp, err := m.Backward(seqs, coef)
		if err != nil {
			t.Fatal(err)
		}
		var g [][]float32
		for _, p := range m.Params {
			g = append(g, p.Grad)
		}
		return logp, g
	}
	lp0, g0 := run(true, 8<<20)
	for _, tc := range []struct {
		name  string
		save  bool
		probs int
	}{{"nothing saved", false, 8 << 20}, {"attention recomputed", true, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			lp, g := run(tc.save, tc.probs)
			for i := range lp0 {
				for j := range lp0[i] {
					if lp[i][j] != lp0[i][j] {
						t.Fatalf("log-prob [%d][%d] = %g, saved %g", i, j, lp[i][j], lp0[i][j])
					}
				}
			}
			for i := range g0 {
				for j := range g0[i] {
					if g[i][j] != g0[i][j] {
						t.Fatalf("gradient %d[%d] = %g, saved %g", i, j, g[i][j], g0[i][j])
					}
				}
			}
		})
	}
}
