package backend

// Sampler is an optional capability of a backend: drawing the next token
// of rows of logits where they are, so that a decoding step brings three
// values per row back to the host instead of the logits. Device backends
// implement it (package cuda); the cpu backends, whose logits are on the
// host already, do not. Callers check for it with a type assertion.
type Sampler interface {
	// Sample draws one token from each row r of logits [n, v] and
	// writes:
	//
	//   - tokens[r]: the token (a float32 id);
	//   - logprobs[r]: log softmax(logits[r]/temperature)[token] over
	//     the whole vocabulary;
	//   - nucleus[r], unless nucleus is empty: the log-prob of the token
	//     under the distribution it was drawn from, the top-p nucleus
	//     renormalised (logprobs[r] when topP is 1).
	//
	// temperature 0 is greedy: the first largest logit, both log-probs
	// those of softmax(logits[r]); us is not read and may be empty.
	// Otherwise us [n] holds one number in [0, 1] per row, which the
	// backend inverts: the nucleus is every token whose logit is at
	// least that of the lowest-ranked token needed to reach topP of the
	// mass (ties with it all belong), and the token is the first, in
	// index order, at which the running sum of the nucleus's
	// probabilities passes us[r] (1 takes the nucleus's last token). The
	// randomness is the caller's alone: the same logits and us give the
	// same tokens, which are those of an exact inversion except where a
	// boundary lies within float32 rounding of us[r].
	//
	// A row that holds a NaN, or whose largest logit is infinite, gets
	// token −1 and NaN log-probs. temperature must be ≥ 0 and topP in
	// (0, 1]; other values, like tensors of another backend or too small
	// for n and v, are errors.
	Sample(tokens, logprobs, nucleus, logits, us Tensor, n, v int, temperature, topP float32) error
}
