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
		d := DrawRow(x[r*v:(r+1)*v], float64(temperature), float64(topP), u)
		vw[0].Host()[r], vw[1].Host()[r] = float32(d.Token), float32(d.LogProb)
		if nucleus.Len() > 0 {
			vw[2].Host()[r] = float32(d.Nucleus)
		}
	}
	return nil
}

// Draw is one row's draw by DrawRow.
type Draw struct {
	// Token is the token drawn, −1 for a row that holds a NaN or whose
	// largest logit is infinite.
	Token int
	// LogProb is log softmax(x/temperature)[Token] over the whole row;
	// Nucleus is the log-prob of Token under the top-p nucleus
	// renormalised. Both are NaN for a row whose Token is −1.
	LogProb, Nucleus float64
	// Gap is the distance from u times the nucleus's mass to the
	// nearest boundary of the inversion (the running sums of the
	// nucleus's weights, its total included), in units of that mass:
	// a device's float32 sums may draw another token where it is within
	// their rounding. It is +Inf when greedy, or when Token is −1.
	Gap float64
}

// DrawRow is the float64 host reference of backend.Sampler.Sample for
// one row of logits x at u (read only when temperature > 0): the token
// and log-probs that contract defines, computed exactly but for float64
// rounding. topP 1 keeps every token, as the device kernels do. The
// arena's Sample draws with it, and the cuda kernels' tests compare
// their sampler with it (tokens where Gap is comfortable, log-probs to
// float32 rounding).
func DrawRow(x []float32, temperature, topP, u float64) Draw {
	nan := math.NaN()
	bad := Draw{Token: -1, LogProb: nan, Nucleus: nan, Gap: math.Inf(1)}
	top := 0
	for i, l := range x {
		if l != l {
			return bad
		}
		if l > x[top] {
			top = i
		}
	}
	m, inv := float64(x[top]), 1.0
	if math.IsInf(m, 0) {
		return bad
	}
	if temperature > 0 {
		inv = 1 / temperature
	}
	w, z := make([]float64, len(x)), 0.0
	for i, l := range x {
		w[i] = math.Exp((float64(l) - m) * inv)
		z += w[i]
	}
	tok, mass, gap := top, z, math.Inf(1)
	if temperature > 0 {
		floor := math.Inf(-1)
		if topP < 1 {
			floor = nucleusFloor(x, w, topP*z)
		}
		tok, mass, gap = invert(x, w, floor, u)
	}
	s := (float64(x[tok]) - m) * inv
	return Draw{Token: tok, LogProb: s - math.Log(z), Nucleus: s - math.Log(mass), Gap: gap}
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
// logit at least floor and a weight above 0, at which the running sum of
// w passes u times their total (the last when none does), that total,
// and the distance from u times it to the nearest running sum, in units
// of the total.
func invert(x []float32, w []float64, floor, u float64) (tok int, mass, gap float64) {
	for i, l := range x {
		if float64(l) >= floor && w[i] > 0 {
			mass += w[i]
		}
	}
	acc, gap, tok := 0.0, math.Inf(1), -1
	last := 0
	for i, l := range x {
		if float64(l) < floor || w[i] <= 0 {
			continue
		}
		acc, last = acc+w[i], i
		gap = min(gap, math.Abs(acc-u*mass)/mass)
		if tok < 0 && acc > u*mass {
			tok = i
		}
	}
	if tok < 0 {
		tok = last
	}
	return tok, mass, gap
}
