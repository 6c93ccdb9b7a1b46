//go:build unix

package arenatest

// The arena's sampler: backend.Sampler's contract computed on the host,
// in float64, over views of the arena, so that decoding that samples on
// the device runs here under the arena's checks.

import (
	"cmp"
	"math"
	"slices"

	"github.com/artist-rl/artist/policy/backend"
)

var _ backend.Sampler = (*Backend)(nil)

// Sample is backend.Sampler.Sample on the arena.
func (b *Backend) Sample(tokens, logprobs, nucleus, logits, us backend.Tensor, n, v int, temperature, topP float32) error {
	vw, err := b.enter("Sample", tokens, logprobs, nucleus, logits, us)
	if err != nil {
		return err
	}
	defer b.leave()
	x := vw[3].Host()
	for r := range n {
		u := 0.0
		if temperature > 0 {
			u = float64(vw[4].Host()[r])
		}
		tok, lp, nuc := drawRow(x[r*v:(r+1)*v], float64(temperature), float64(topP), u)
		vw[0].Host()[r], vw[1].Host()[r] = float32(tok), lp
		if nucleus.Len() > 0 {
			vw[2].Host()[r] = nuc
		}
	}
	return nil
}

// drawRow draws from one row of logits as backend.Sampler says.
func drawRow(x []float32, temperature, topP, u float64) (tok int, lp, nuc float32) {
	top := 0
	for i, l := range x {
		if l != l {
			return -1, float32(math.NaN()), float32(math.NaN())
		}
		if l > x[top] {
			top = i
		}
	}
	m, inv := float64(x[top]), 1.0
	if math.IsInf(m, 0) {
		return -1, float32(math.NaN()), float32(math.NaN())
	}
	if temperature > 0 {
		inv = 1 / temperature
	}
	w, z := make([]float64, len(x)), 0.0
	for i, l := range x {
		w[i] = math.Exp((float64(l) - m) * inv)
		z += w[i]
	}
	tok, mass := top, z
	if temperature > 0 {
		tok, mass = invert(x, w, nucleusFloor(x, w, topP*z), u)
	}
	s := (float64(x[tok]) - m) * inv
	return tok, float32(s - math.Log(z)), float32(s - math.Log(mass))
}

// nucleusFloor is the logit of the lowest-ranked token needed for the
// weights w to reach need (−∞ when that takes every token).
func nucleusFloor(x []float32, w []float64, need float64) float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[b], x[a]) })
	acc := 0.0
	for _, i := range idx {
		if acc += w[i]; acc >= need {
			return float64(x[i])
		}
	}
	return math.Inf(-1)
}

// invert returns the first token, in index order among those with a
// logit at least floor, at which the running sum of w passes u times
// their total (the last when none does), and that total.
func invert(x []float32, w []float64, floor, u float64) (tok int, mass float64) {
	for i, l := range x {
		if float64(l) >= floor && w[i] > 0 {
			mass += w[i]
		}
	}
	acc := 0.0
	for i, l := range x {
		if float64(l) >= floor && w[i] > 0 {
			if acc, tok = acc+w[i], i; acc > u*mass {
				return i, mass
			}
		}
	}
	return tok, mass
}
