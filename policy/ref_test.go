package policy

// A float64 reference of the model written straight from its definition,
// independent of the kernels under test, and the test models.

import (
	"math"
	"math/rand"
	"testing"
)

// tinyConfig is the test model: V=40, C=16, F=24, L=2, H=4, K=2.
func tinyConfig(tied bool) Config {
	return Config{
		VocabSize: 40, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64,
		RopeTheta: 10000, RMSNormEps: 1e-6, TieWordEmbeddings: tied,
	}
}

// testModel builds a model whose weights are large enough that every
// operation matters and gradients are not tiny: matrices N(0, 0.3²),
// embeddings N(0, 1), biases N(0, 0.1²), norm weights 1 + N(0, 0.1²).
func testModel(t testing.TB, tied bool, seed int64) *Model {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	m, err := New(tinyConfig(tied), rng)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params {
		std, mean := 0.3, 0.0
		switch {
		case p == m.Embed:
			std = 1
		case len(p.Shape) == 1 && isNorm(p.Name):
			std, mean = 0.1, 1
		case len(p.Shape) == 1:
			std = 0.1
		}
		for i := range p.Data {
			p.Data[i] = float32(mean + std*rng.NormFloat64())
		}
	}
	return m
}

// randomSeqs draws sequences of the given lengths.
func randomSeqs(rng *rand.Rand, V int, lens ...int) [][]int {
	seqs := make([][]int, len(lens))
	for i, n := range lens {
		seqs[i] = make([]int, n)
		for t := range seqs[i] {
			seqs[i][t] = rng.Intn(V)
		}
	}
	return seqs
}

// refLogSoftmax returns, for every position t of seq, log softmax of the
// logits after token t: [len(seq)][V], in float64.
func refLogSoftmax(m *Model, seq []int) [][]float64 {
	c := m.Config
	C, D := c.HiddenSize, c.HeadDim()
	x := make([][]float64, len(seq))
	for t, tok := range seq {
		x[t] = f64(m.Embed.Data[tok*C : (tok+1)*C])
	}
	for _, L := range m.Layers {
		h := refNorm(x, L.AttnNorm.Data, c.RMSNormEps)
		q := refRotate(refLinear(h, L.Q, L.QB), D, c.RopeTheta)
		k := refRotate(refLinear(h, L.K, L.KB), D, c.RopeTheta)
		v := refLinear(h, L.V, L.VB)
		a := refAttention(q, k, v, c.NumAttentionHeads, c.NumKeyValueHeads, D)
		x = refAdd(x, refLinear(a, L.O, nil))
		h = refNorm(x, L.MLPNorm.Data, c.RMSNormEps)
		g, u := refLinear(h, L.Gate, nil), refLinear(h, L.Up, nil)
		for t := range g {
			for j, z := range g[t] {
				g[t][j] = z / (1 + math.Exp(-z)) * u[t][j]
			}
		}
		x = refAdd(x, refLinear(g, L.Down, nil))
	}
	logits := refLinear(refNorm(x, m.Norm.Data, c.RMSNormEps), m.Head, nil)
	temp := m.Temperature() // SetTemperature: the log-softmax of logits / T
	for _, row := range logits {
		for j := range row {
			row[j] /= temp
		}
	}
	for _, row := range logits {
		mx := math.Inf(-1)
		for _, z := range row {
			mx = math.Max(mx, z)
		}
		var s float64
		for _, z := range row {
			s += math.Exp(z - mx)
		}
		for j := range row {
			row[j] -= mx + math.Log(s)
		}
	}
	return logits
}

// refLogProbs is the reference of LogProbs.
func refLogProbs(m *Model, seqs [][]int) [][]float64 {
	out := make([][]float64, len(seqs))
	for i, s := range seqs {
		out[i] = make([]float64, len(s))
		lsm := refLogSoftmax(m, s)
		for t := 1; t < len(s); t++ {
			out[i][t] = lsm[t-1][s[t]]
		}
	}
	return out
}

// refObjective is Σ_i Σ_{t≥1} coef[i][t]·logp[i][t] in float64.
func refObjective(m *Model, seqs [][]int, coef [][]float32) float64 {
	var sum float64
	for i, lp := range refLogProbs(m, seqs) {
		for t := 1; t < len(lp); t++ {
			sum += float64(coef[i][t]) * lp[t]
		}
	}
	return sum
}

func f64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

func refNorm(x [][]float64, w []float32, eps float64) [][]float64 {
	y := make([][]float64, len(x))
	for t, row := range x {
		var ss float64
		for _, v := range row {
			ss += v * v
		}
		r := 1 / math.Sqrt(ss/float64(len(row))+eps)
		y[t] = make([]float64, len(row))
		for j, v := range row {
			y[t][j] = v * r * float64(w[j])
		}
	}
	return y
}

// refLinear is x·Wᵀ + b with W [out, in].
func refLinear(x [][]float64, w, b *Param) [][]float64 {
	out, in := w.Shape[0], w.Shape[1]
	y := make([][]float64, len(x))
	for t, row := range x {
		y[t] = make([]float64, out)
		for o := 0; o < out; o++ {
			var s float64
			if b != nil {
				s = float64(b.Data[o])
			}
			for i := 0; i < in; i++ {
				s += row[i] * float64(w.Data[o*in+i])
			}
			y[t][o] = s
		}
	}
	return y
}

// refRotate applies rotate-half rotary embeddings to every head of each row
// (row t is position t), angles computed here from theta.
func refRotate(x [][]float64, D int, theta float64) [][]float64 {
	half := D / 2
	for t, row := range x {
		for h := 0; h < len(row)/D; h++ {
			head := append([]float64(nil), row[h*D:(h+1)*D]...)
			for j := 0; j < half; j++ {
				a := float64(t) * math.Pow(theta, -2*float64(j)/float64(D))
				c, s := math.Cos(a), math.Sin(a)
				row[h*D+j] = head[j]*c - head[j+half]*s
				row[h*D+j+half] = head[j+half]*c + head[j]*s
			}
		}
	}
	return x
}

func refAttention(q, k, v [][]float64, H, K, D int) [][]float64 {
	out := make([][]float64, len(q))
	for t := range q {
		out[t] = make([]float64, H*D)
		for h := 0; h < H; h++ {
			kv := h / (H / K)
			w := make([]float64, t+1)
			var sum float64
			for j := 0; j <= t; j++ {
				var dot float64
				for d := 0; d < D; d++ {
					dot += q[t][h*D+d] * k[j][kv*D+d]
				}
				w[j] = math.Exp(dot / math.Sqrt(float64(D)))
				sum += w[j]
			}
			for j := 0; j <= t; j++ {
				for d := 0; d < D; d++ {
					out[t][h*D+d] += w[j] / sum * v[j][kv*D+d]
				}
			}
		}
	}
	return out
}

func refAdd(x, y [][]float64) [][]float64 {
	for t := range x {
		for j := range x[t] {
			x[t][j] += y[t][j]
		}
	}
	return x
}

// maxAbsDiff returns max |a−b| over two ragged arrays of equal shape.
func maxAbsDiff(a [][]float32, b [][]float64) float64 {
	var worst float64
	for i := range a {
		for t := range a[i] {
			worst = math.Max(worst, math.Abs(float64(a[i][t])-b[i][t]))
		}
	}
	return worst
}
