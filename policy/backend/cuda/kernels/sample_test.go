//go:build linux

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/artist-rl/artist/policy/backend/arenatest"
)

// comfortable is the least gap, in units of the nucleus's mass, between
// a row's u and a boundary of its inversion (arenatest.Draw's Gap) for
// which the test requires the device's token to be the reference's:
// float32 sums can move a boundary by a few ulps of the mass, and u is
// rounded to float32.
const comfortable = 1e-4

// uniforms draws one u per row of logits [N, V], redrawing those that
// fall within comfortable of a boundary of arenatest.DrawRow's
// inversion.
func uniforms(rng *rand.Rand, logits []float32, N, V int, temp, topP float32) []float32 {
	us := make([]float32, N)
	for r := range N {
		for {
			us[r] = rng.Float32()
			d := arenatest.DrawRow(logits[r*V:(r+1)*V], float64(temp), float64(topP), float64(us[r]))
			if d.Gap > comfortable {
				break
			}
		}
	}
	return us
}

// TestSample compares Sample with arenatest.DrawRow, the float64 host
// reference of the sampler's contract: the same token (greedy: the
// host's argmax; else the host's inversion at the same u, away from
// float ties) and log-probs to float32 rounding; a second run gives the
// same tokens.
func TestSample(t *testing.T) {
	e := newEmu(t)
	for i, c := range []struct {
		N, V       int
		temp, topP float32
	}{
		{3, 1, 1, 1}, {7, 101, 1, 1}, {7, 101, 0, 1}, {7, 101, 0.7, 0.9}, {5, 1000, 1.3, 0.5}, {4, 3001, 1, 0.95},
		{64, 257, 1, 0.9}, {64, 257, 0, 0.9},
	} {
		t.Run(fmt.Sprintf("case %d %+v", i, c), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(8, uint64(i)))
			logits := randn(rng, c.N*c.V, 3)
			us := uniforms(rng, logits, c.N, c.V, c.temp, c.topP)
			tok, lp, nuc := make([]float32, c.N), make([]float32, c.N), make([]float32, c.N)
			must(t, Sample(e, addr(tok), addr(lp), addr(nuc), addr(logits), addr(us), c.N, c.V, c.temp, c.topP))
			wlp, wnuc := make([]float32, c.N), make([]float32, c.N)
			for r := range c.N {
				d := arenatest.DrawRow(logits[r*c.V:(r+1)*c.V], float64(c.temp), float64(c.topP), float64(us[r]))
				if int(tok[r]) != d.Token {
					t.Errorf("row %d: token %v, want %d", r, tok[r], d.Token)
				}
				wlp[r], wnuc[r] = float32(d.LogProb), float32(d.Nucleus)
			}
			assertClose(t, "logprobs", lp, wlp, tolerance)
			assertClose(t, "nucleus", nuc, wnuc, tolerance)
			again := make([]float32, c.N)
			must(t, Sample(e, addr(again), addr(lp), 0, addr(logits), addr(us), c.N, c.V, c.temp, c.topP))
			assertClose(t, "tokens of a second run", again, tok, 0)
		})
	}
}

// TestSampleEnds checks the ends of u: 0 takes the nucleus's first token
// in index order, 1 its last, and greedy reads no u.
func TestSampleEnds(t *testing.T) {
	e := newEmu(t)
	row := []float32{-9, 2, 0, 2.5, -9, 1, -9}
	logits := append(append([]float32{}, row...), row...)
	tok, lp := make([]float32, 2), make([]float32, 2)
	must(t, Sample(e, addr(tok), addr(lp), 0, addr(logits), addr([]float32{0, 1}), 2, len(row), 1, 0.9))
	if tok[0] != 1 || tok[1] != 5 {
		t.Errorf("tokens at u = 0 and 1: %v, want [1 5] (the nucleus {1, 3, 5} at top_p 0.9)", tok)
	}
	must(t, Sample(e, addr(tok), addr(lp), 0, addr(logits), 0, 2, len(row), 0, 1))
	if tok[0] != 3 || tok[1] != 3 {
		t.Errorf("greedy tokens %v, want [3 3]", tok)
	}
	if err := Sample(e, addr(tok), addr(lp), 0, addr(logits), 0, 2, len(row), 1, 1); err == nil {
		t.Error("Sample at temperature 1 without uniforms: no error")
	}
}

func TestSampleBadRows(t *testing.T) {
	e := newEmu(t)
	logits := []float32{1, float32(math.NaN()), 2, 3, float32(math.Inf(1)), 0, 1, 2, 3}
	tok, lp := make([]float32, 3), make([]float32, 3)
	must(t, Sample(e, addr(tok), addr(lp), 0, addr(logits), addr([]float32{0.5, 0.5, 0.5}), 3, 3, 1, 1))
	if tok[0] != -1 || tok[1] != -1 || !math.IsNaN(float64(lp[0])) || tok[2] < 0 {
		t.Errorf("tokens %v, log-probs %v: want −1 and NaN for the NaN and +Inf rows only", tok, lp)
	}
}

// TestSampleDistribution draws many rows of the same logits at uniform
// us and checks each token's frequency against its probability, within
// 4.5 standard deviations.
func TestSampleDistribution(t *testing.T) {
	e := newEmu(t)
	const N, V = 500, 5
	row := []float32{0.5, -1, 2, 0, 1}
	logits := make([]float32, 0, N*V)
	for range N {
		logits = append(logits, row...)
	}
	rng := rand.New(rand.NewPCG(2026, 0))
	us := make([]float32, N)
	for r := range us {
		us[r] = rng.Float32()
	}
	tok, lp := make([]float32, N), make([]float32, N)
	must(t, Sample(e, addr(tok), addr(lp), 0, addr(logits), addr(us), N, V, 1, 1))
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
