package rollout

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// sampler draws a token from next-token logits [V]. It is a pure function
// of the logits and one uniform number u in [0, 1), so rows can be sampled
// in parallel once their u values were drawn from the seeded source in row
// order.
type sampler struct {
	temperature float64 // 0 means greedy
	topP        float64 // 1 keeps the whole distribution
}

// errLogits reports logits the sampler cannot use.
var errLogits = errors.New("logits are empty or not finite")

// scratch is per-draw working memory, pooled across draws.
type scratch struct {
	probs []float64 // exp((logit - max) / T), unnormalised
	cands []cand
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// draw returns the sampled token and two log-probabilities of it,
// computed in float64: lp under softmax(logits / T) over the whole
// vocabulary (what the training path recomputes at the same temperature,
// and the ratio's old log-prob), and nuc under the distribution it was
// drawn from: the nucleus renormalised when top_p < 1, lp otherwise.
// Greedy decoding (T = 0) gives log softmax(logits) for both.
func (s sampler) draw(logits []float32, u float64) (tok int, lp, nuc float32, err error) {
	top, err := argmax(logits)
	if err != nil {
		return 0, 0, 0, err
	}
	m := float64(logits[top])
	if s.temperature == 0 {
		lp := float32(logProb(logits, m, top))
		return top, lp, lp, nil
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	z := s.weights(sc, logits, m)
	mass := z
	if s.topP >= 1 {
		tok = inverseCDF(sc.probs, z, u, nil)
	} else {
		tok, mass = s.nucleus(sc, logits, m, z, u)
	}
	// log p_T(tok) = (l_tok − m)/T − log Σ exp((l − m)/T), the sum being z.
	scaled := (float64(logits[tok]) - m) / s.temperature
	return tok, float32(scaled - math.Log(z)), float32(scaled - math.Log(mass)), nil
}

// argmax returns the first index of the largest logit. It fails on an
// empty row, a NaN, +Inf, or a row that is all -Inf.
func argmax(logits []float32) (int, error) {
	if len(logits) == 0 {
		return 0, errLogits
	}
	top := 0
	for i, l := range logits {
		if l != l {
			return 0, fmt.Errorf("%w: NaN at %d", errLogits, i)
		}
		if l > logits[top] {
			top = i
		}
	}
	if l := float64(logits[top]); math.IsInf(l, 0) {
		return 0, fmt.Errorf("%w: largest logit is %g", errLogits, l)
	}
	return top, nil
}

// logProb is log softmax(logits)[tok], given the largest logit m.
func logProb(logits []float32, m float64, tok int) float64 {
	z := 0.0
	for _, l := range logits {
		z += math.Exp(float64(l) - m)
	}
	return float64(logits[tok]) - m - math.Log(z)
}

// weights fills sc.probs with the unnormalised probabilities at the
// sampler's temperature and returns their sum, taken in index order.
func (s sampler) weights(sc *scratch, logits []float32, m float64) float64 {
	if cap(sc.probs) < len(logits) {
		sc.probs = make([]float64, len(logits))
	}
	sc.probs = sc.probs[:len(logits)]
	inv, z := 1/s.temperature, 0.0
	for i, l := range logits {
		p := math.Exp((float64(l) - m) * inv)
		sc.probs[i], z = p, z+p
	}
	return z
}

// inverseCDF returns the first token, in index order, at which the running
// sum of probs passes u*mass, counting only tokens keep accepts (all when
// keep is nil); mass is the sum of the counted probs.
func inverseCDF(probs []float64, mass, u float64, keep func(int, float64) bool) int {
	target, acc, last := u*mass, 0.0, 0
	for i, p := range probs {
		if p == 0 || keep != nil && !keep(i, p) {
			continue
		}
		acc, last = acc+p, i
		if acc > target {
			return i
		}
	}
	return last // u*mass rounded up to mass
}

// cand is a token and its unnormalised probability. Tokens are ranked by
// probability, ties going to the lower id.
type cand struct {
	id int
	p  float64
}

func (a cand) before(b cand) bool { return a.p > b.p || a.p == b.p && a.id < b.id }

// nucleus samples from the smallest set of highest-ranked tokens whose
// mass reaches topP of z (the nucleus), in index order within it, and
// returns the token and the nucleus's unnormalised mass. Only tokens
// above a probability floor become candidates, the floor falling until
// the candidates hold enough mass; a selection finds the nucleus's
// lowest-ranked member without sorting.
func (s sampler) nucleus(sc *scratch, logits []float32, m, z, u float64) (int, float64) {
	need := s.topP * z
	for _, floor := range []float64{1e-4, 1e-10, 0} {
		sc.cands = sc.cands[:0]
		mass := 0.0
		for i, p := range sc.probs {
			if p >= floor && p > 0 {
				sc.cands = append(sc.cands, cand{i, p})
				mass += p
			}
		}
		if mass < need && floor > 0 {
			continue
		}
		last := lastMember(sc.cands, need)
		in := func(i int, p float64) bool { return !last.before(cand{i, p}) }
		mass = 0
		for i, p := range sc.probs {
			if p > 0 && in(i, p) {
				mass += p
			}
		}
		return inverseCDF(sc.probs, mass, u, in), mass
	}
	panic("unreachable")
}

// lastMember returns the k-th candidate in rank order for the least k
// whose first k candidates hold need: the lowest-ranked member of the
// nucleus. It reorders c (quickselect, expected linear time).
func lastMember(c []cand, need float64) cand {
	for {
		if len(c) == 1 {
			return c[0]
		}
		pivot := median3(c[0], c[len(c)/2], c[len(c)-1])
		i, mass := 0, 0.0
		for j := range c {
			if c[j].before(pivot) {
				c[i], c[j] = c[j], c[i]
				mass += c[i].p
				i++
			}
		}
		if mass >= need {
			c = c[:i]
			continue
		}
		if mass+pivot.p >= need {
			return pivot
		}
		need -= mass + pivot.p
		rest := c[i:]
		for j := range rest {
			if rest[j].id == pivot.id {
				rest[0], rest[j] = rest[j], rest[0]
				break
			}
		}
		if c = rest[1:]; len(c) == 0 {
			return pivot // rounding left need just above the total mass
		}
	}
}

func median3(a, b, c cand) cand {
	if b.before(a) {
		a, b = b, a
	}
	if c.before(b) {
		b = c
		if b.before(a) {
			b = a
		}
	}
	return b
}

// parallel runs fn(0..n-1) on at most GOMAXPROCS goroutines and returns
// when all are done.
func parallel(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}
