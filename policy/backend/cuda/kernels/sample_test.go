//go:build linux

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestUniformPhilox(t *testing.T) {
	// Philox4x32-10 of counter 0 under key 0, first word (Random123's
	// known-answer test).
	if got, want := Uniform(0, 0, 0), float32(0x6627e8d5>>8)/(1<<24); got != want {
		t.Errorf("Uniform(0, 0, 0) = %v, want %v", got, want)
	}
	if Uniform(1, 2, 3) == Uniform(1, 2, 4) || Uniform(1, 2, 3) == Uniform(1, 3, 3) {
		t.Error("rows or steps draw the same number")
	}
}

// refSample is Sample's algorithm in float64 on the host.
func refSample(x []float32, temp, topP float64, u float64) (tok int, lp, nuc float64) {
	top := 0
	for i, v := range x {
		if v > x[top] {
			top = i
		}
	}
	m, inv := float64(x[top]), 1.0
	if temp > 0 {
		inv = 1 / temp
	}
	w, z := make([]float64, len(x)), 0.0
	for i, v := range x {
		w[i] = math.Exp((float64(v) - m) * inv)
		z += w[i]
	}
	if temp == 0 {
		return top, -math.Log(z), -math.Log(z)
	}
	theta := refNucleus(x, w, topP*z)
	mass, last := 0.0, 0
	for i, v := range x {
		if float64(v) >= theta && w[i] > 0 {
			mass += w[i]
		}
	}
	acc := 0.0
	tok = -1
	for i, v := range x {
		if float64(v) >= theta && w[i] > 0 {
			acc, last = acc+w[i], i
			if acc > u*mass {
				tok = i
				break
			}
		}
	}
	if tok < 0 {
		tok = last
	}
	s := (float64(x[tok]) - m) * inv
	return tok, s - math.Log(z), s - math.Log(mass)
}

// refNucleus returns the logit of the lowest-ranked token that the
// nucleus needs to hold need of the mass of the weights w (−∞ when need
// is the whole mass).
func refNucleus(x []float32, w []float64, need float64) float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
	acc, total := 0.0, 0.0
	for _, v := range w {
		total += v
	}
	if need >= total {
		return math.Inf(-1)
	}
	for _, i := range idx {
		if acc += w[i]; acc >= need {
			return float64(x[i])
		}
	}
	return math.Inf(-1)
}

func TestSample(t *testing.T) {
	e := newEmu(t)
	for i, c := range []struct {
		N, V       int
		temp, topP float32
	}{
		{3, 1, 1, 1}, {7, 101, 1, 1}, {7, 101, 0, 1}, {7, 101, 0.7, 0.9}, {5, 1000, 1.3, 0.5}, {4, 3001, 1, 0.95},
	} {
		t.Run(fmt.Sprintf("case %d %+v", i, c), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(8, uint64(i)))
			logits := randn(rng, c.N*c.V, 3)
			tok, lp, nuc := make([]float32, c.N), make([]float32, c.N), make([]float32, c.N)
			const seed, step = 42, 7
			must(t, Sample(e, addr(tok), addr(lp), addr(nuc), addr(logits), c.N, c.V, c.temp, c.topP, seed, step))
			wlp, wnuc := make([]float32, c.N), make([]float32, c.N)
			for r := range c.N {
				u := float64(Uniform(seed, step, r))
				wt, l, n := refSample(logits[r*c.V:(r+1)*c.V], float64(c.temp), float64(c.topP), u)
				if int(tok[r]) != wt {
					t.Errorf("row %d: token %v, want %d", r, tok[r], wt)
				}
				wlp[r], wnuc[r] = float32(l), float32(n)
			}
			assertClose(t, "logprobs", lp, wlp, tolerance)
			assertClose(t, "nucleus", nuc, wnuc, tolerance)
			again := make([]float32, c.N)
			must(t, Sample(e, addr(again), addr(lp), 0, addr(logits), c.N, c.V, c.temp, c.topP, seed, step))
			assertClose(t, "tokens of a second run", again, tok, 0)
		})
	}
}

func TestSampleBadRows(t *testing.T) {
	e := newEmu(t)
	logits := []float32{1, float32(math.NaN()), 2, 3, float32(math.Inf(1)), 0, 1, 2, 3}
	tok, lp := make([]float32, 3), make([]float32, 3)
	must(t, Sample(e, addr(tok), addr(lp), 0, addr(logits), 3, 3, 1, 1, 1, 1))
	if tok[0] != -1 || tok[1] != -1 || !math.IsNaN(float64(lp[0])) || tok[2] < 0 {
		t.Errorf("tokens %v, log-probs %v: want −1 and NaN for the NaN and +Inf rows only", tok, lp)
	}
}

// TestSampleDistribution draws many rows of the same logits and checks
// each token's frequency against its probability, within 4.5 standard
// deviations.
func TestSampleDistribution(t *testing.T) {
	e := newEmu(t)
	const N, V = 500, 5
	row := []float32{0.5, -1, 2, 0, 1}
	logits := make([]float32, 0, N*V)
	for range N {
		logits = append(logits, row...)
	}
	tok, lp := make([]float32, N), make([]float32, N)
	must(t, Sample(e, addr(tok), addr(lp), 0, addr(logits), N, V, 1, 1, 2026, 0))
	count := make([]int, V)
	for _, k := range tok {
		count[int(k)]++
	}
	z := 0.0
	for _, v := range row {
		z += math.Exp(float64(v))
	}
	for j, v := range row {
		p := math.Exp(float64(v)) / z
		if sd := math.Sqrt(N * p * (1 - p)); math.Abs(float64(count[j])-N*p) > 4.5*sd {
			t.Errorf("token %d drawn %d times in %d, expected %.0f ± %.0f", j, count[j], N, N*p, sd)
		}
	}
}
