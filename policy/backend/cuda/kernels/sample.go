package kernels

import (
	"fmt"
	"math/bits"
)

// blockSample is the block of the sampling kernel, one per row.
const blockSample = 512

// Sample draws the next token of each row of logits [N, V] on the device
// and writes tokens[r] (a float32 token id), logprobs[r] = log
// softmax(logits[r]/T)[token] over the whole vocabulary and, when nucleus
// is not 0, nucleus[r] = the log-prob under the distribution the token
// was drawn from (the top-p nucleus renormalised; logprobs[r] when topP
// is 1), as package rollout's host sampler does.
//
// temperature 0 is greedy: the first largest logit, both log-probs at
// temperature 1. Otherwise the nucleus is every token whose logit is at
// least that of the lowest-ranked token needed to reach topP of the mass
// (tokens tied with it all belong), and the token is where the running
// sum of the nucleus's weights, in index order, passes u times their
// total, u = Uniform(seed, step, r): the same seed, step and logits give
// the same tokens on every run. A row with a NaN, or whose largest logit
// is infinite, gives token −1 and NaN log-probs.
func Sample(l Launcher, tokens, logprobs, nucleus, logits uintptr, N, V int, temperature, topP float32, seed, step uint64) error {
	if err := checkSizes("Sample", N, V); err != nil || N == 0 {
		return err
	}
	if V == 0 || V > 1<<24 || !(temperature >= 0) || !(topP > 0 && topP <= 1) {
		return fmt.Errorf("%w in Sample: V=%d (1 … 2²⁴), temperature %g (≥ 0), top_p %g (in (0, 1])", errSize, V, temperature, topP)
	}
	return launch(l, "sample", rowsGrid(N), threads(blockSample), 0,
		tokens, logprobs, nucleus, logits, int32(V), temperature, topP, seed, step)
}

// Uniform is the number in [0, 1) that Sample inverts for row r of step
// under seed: the first word of Philox4x32-10 of the counter
// (step, r, 0) under the key seed, its top 24 bits scaled by 2⁻²⁴.
func Uniform(seed, step uint64, r int) float32 {
	k0, k1 := uint32(seed), uint32(seed>>32)
	c0, c1, c2, c3 := uint32(step), uint32(step>>32), uint32(r), uint32(0)
	for range 10 {
		hi0, lo0 := bits.Mul32(0xD2511F53, c0)
		hi1, lo1 := bits.Mul32(0xCD9E8D57, c2)
		c0, c1, c2, c3 = hi1^c1^k0, lo1, hi0^c3^k1, lo0
		k0 += 0x9E3779B9
		k1 += 0xBB67AE85
	}
	return float32(c0>>8) * (1.0 / (1 << 24))
}
