package kernels

import "fmt"

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
// temperature 1; us is not read and may be 0. Otherwise the nucleus is
// every token whose logit is at least that of the lowest-ranked token
// needed to reach topP of the mass (tokens tied with it all belong), and
// the token is where the running sum of the nucleus's weights, in index
// order, passes us[r] times their total (us [N] holds one number in
// [0, 1] per row; 1 takes the nucleus's last token): the randomness is
// the caller's, so the same us and logits give the same tokens on every
// run. A row with a NaN, or whose largest logit is infinite, gives token
// −1 and NaN log-probs.
func Sample(l Launcher, tokens, logprobs, nucleus, logits, us uintptr, N, V int, temperature, topP float32) error {
	if err := checkSizes("Sample", N, V); err != nil || N == 0 {
		return err
	}
	if V == 0 || V > 1<<24 || !(temperature >= 0) || !(topP > 0 && topP <= 1) {
		return fmt.Errorf("%w in Sample: V=%d (1 … 2²⁴), temperature %g (≥ 0), top_p %g (in (0, 1])", errSize, V, temperature, topP)
	}
	if temperature > 0 && us == 0 {
		return fmt.Errorf("%w in Sample: no uniforms (us) at temperature %g", errSize, temperature)
	}
	return launch(l, "sample", rowsGrid(N), threads(blockSample), 0,
		tokens, logprobs, nucleus, logits, us, int32(V), temperature, topP)
}
