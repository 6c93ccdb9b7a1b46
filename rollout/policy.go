package rollout

// Policy is what the engine needs from a model: batched incremental decoding.
// *policy.Model implements it; a scripted fake drives the engine's tests.
type Policy interface {
	// NewSession starts n empty sequences, each with room for maxLen tokens.
	NewSession(n, maxLen int) Session
	// Context is the most tokens one sequence may hold (a model's
	// max_position_embeddings); 0 means no limit.
	Context() int
}

// Session is a batch of sequences decoded together (a KV cache).
type Session interface {
	// Step appends feed[i] to sequence i and returns, for every i with a
	// non-empty feed, the next-token logits [V] after its last fed token;
	// rows with an empty feed are left as they are and get a nil row.
	// It returns an error, and appends nothing, when a sequence would
	// hold more tokens than its room (maxLen or the policy's context).
	Step(feed [][]int) ([][]float32, error)
}

// DeviceSession is a Session that can draw the next tokens where it
// computes the logits, bringing back a token and two log-probs per
// sequence instead of V logits (a *policy.Session on a device backend).
// When CanSampleOnDevice says so, a Batcher over it draws a step's tokens
// there whenever every row of the step draws with one sampler (each row
// at the uniform number it would have drawn from its stream for the host
// sampler), and Complete on it draws there unless the caller needs the
// logits (CompleteConfig.NeedLogits).
type DeviceSession interface {
	Session
	// CanSampleOnDevice reports whether StepSample runs.
	CanSampleOnDevice() bool
	// StepSample is Step followed by drawing, for every sequence i with
	// a non-empty feed, tokens[i] at us[i] in [0, 1) (us is nil, and
	// not read, at temperature 0: greedy), with logprobs[i] under
	// softmax(logits/temperature) and nucleus[i] under the top-p
	// nucleus it was drawn from, as the engine's host sampler does up
	// to float32 rounding; a sequence with an empty feed gets token −1.
	// It returns an error when a fed sequence's logits are not finite.
	StepSample(feed [][]int, us []float64, temperature, topP float64) (tokens []int, logprobs, nucleus []float32, err error)
}

// closeSession releases sess when it has a Close method (a policy.Session
// does: on a device backend its caches live in device memory); the
// engine and Complete close every session they start once they are done
// with it.
func closeSession(sess Session) {
	if c, ok := sess.(interface{ Close() }); ok {
		c.Close()
	}
}

// Tokenizer turns text into token ids and back.
type Tokenizer interface {
	Encode(text string) []int
	Decode(ids []int) string
	// EOS is the end-of-sequence token id.
	EOS() int
}
