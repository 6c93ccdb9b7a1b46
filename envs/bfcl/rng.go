package bfcl

import "math/bits"

// pyRandom reproduces Python's random.Random (MT19937) for the draws the
// environments make, so that seeded ids, tokens and readings match.
type pyRandom struct {
	mt  [624]uint32
	idx int
}

// newPyRandom seeds like random.Random(seed) for a non-negative int seed.
func newPyRandom(seed uint64) *pyRandom {
	r := &pyRandom{}
	key := []uint32{uint32(seed)}
	if seed>>32 != 0 {
		key = append(key, uint32(seed>>32))
	}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = 624
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(624, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

func (r *pyRandom) next32() uint32 {
	if r.idx >= 624 {
		for i := 0; i < 624; i++ {
			y := (r.mt[i] & 0x80000000) | (r.mt[(i+1)%624] & 0x7fffffff)
			v := r.mt[(i+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[i] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// getrandbits returns k random bits, 0 < k <= 64.
func (r *pyRandom) getrandbits(k int) uint64 {
	if k <= 32 {
		return uint64(r.next32() >> (32 - k))
	}
	lo := uint64(r.next32())
	hi := uint64(r.next32() >> (64 - k))
	return lo | hi<<32
}

// randint returns an int in [lo, hi], as random.randint.
func (r *pyRandom) randint(lo, hi int64) int64 {
	n := uint64(hi - lo + 1)
	k := bits.Len64(n)
	v := r.getrandbits(k)
	for v >= n {
		v = r.getrandbits(k)
	}
	return lo + int64(v)
}

// random returns a float in [0, 1), as random.random.
func (r *pyRandom) random() float64 {
	a := r.next32() >> 5
	b := r.next32() >> 6
	return (float64(a)*67108864 + float64(b)) / 9007199254740992
}

// uniform returns lo + (hi-lo)*random(), as random.uniform.
func (r *pyRandom) uniform(lo, hi float64) float64 { return lo + (hi-lo)*r.random() }
