package policy

// Decoding that draws the next tokens where the backend computes the
// logits: a backend.Sampler (the cuda backend) inverts each row's
// nucleus on the device at a uniform number the caller drew, and only
// the token and its two log-probs come back to the host.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// CanSampleOnDevice reports whether StepSample runs on the session's
// backend: whether the backend is a backend.Sampler (the cuda backend;
// the cpu backends, which hold the logits on the host anyway, are not).
func (s *Session) CanSampleOnDevice() bool {
	_, ok := s.m.be.(backend.Sampler)
	return ok
}

// StepSample is Step followed by drawing the next token of every fed
// sequence on the backend, which brings back three values per fed
// sequence instead of its V logits. feed is as in Step, with Step's
// errors and panics. It returns, for every sequence i with a non-empty
// feed, tokens[i] (the token drawn), logprobs[i] = log
// softmax(logits/temperature)[token] over the whole vocabulary and
// nucleus[i] = its log-prob under the distribution it was drawn from
// (the top-p nucleus renormalised; logprobs[i] when topP is 1); a
// sequence with an empty feed gets token −1 and zero log-probs.
//
// temperature 0 is greedy: the first largest logit, both log-probs under
// softmax(logits), and us is not read (it may be nil). Otherwise us[i],
// in [0, 1), is sequence i's uniform number, len(us) = len(feed), and
// the token is the first, in index order, at which the running sum of
// the nucleus's probabilities passes us[i] (see backend.Sampler): the
// same inversion as a host sampler's at the same u, up to float32
// rounding. The randomness is the caller's alone.
//
// StepSample returns an error, and appends nothing, when the backend is
// not a backend.Sampler (CanSampleOnDevice), temperature is negative,
// topP is outside (0, 1] or a fed sequence's u is outside [0, 1); it
// returns an error naming the sequence, its tokens appended, when a fed
// sequence's logits hold a NaN or an infinite largest logit. It panics
// (a programmer error) when temperature > 0 and len(us) ≠ len(feed).
func (s *Session) StepSample(feed [][]int, us []float64, temperature, topP float64) (tokens []int, logprobs, nucleus []float32, err error) {
	smp, ok := s.m.be.(backend.Sampler)
	if !ok {
		return nil, nil, nil, fmt.Errorf("policy: backend %s does not sample on the device: use Step", s.m.be.Info().Name)
	}
	if err := checkDraw(feed, us, temperature, topP); err != nil {
		return nil, nil, nil, err
	}
	lay, err := s.layoutOf(feed, true)
	if err != nil {
		return nil, nil, nil, err
	}
	tokens = make([]int, len(feed))
	for i := range tokens {
		tokens[i] = -1
	}
	logprobs, nucleus = make([]float32, len(feed)), make([]float32, len(feed))
	if len(lay.spans) == 0 {
		return tokens, logprobs, nucleus, nil
	}
	drawn, err := s.drawSpans(smp, lay, us, float32(temperature), float32(topP)) // [3, S]
	if err != nil {
		return nil, nil, nil, fmt.Errorf("policy: %w", err)
	}
	S := len(lay.spans)
	for k, sp := range lay.spans {
		tok := drawn[k]
		if tok < 0 {
			return nil, nil, nil, fmt.Errorf("policy: sequence %d: its logits hold a NaN or an infinite largest logit", sp.seq)
		}
		tokens[sp.seq], logprobs[sp.seq], nucleus[sp.seq] = int(tok), drawn[S+k], drawn[2*S+k]
	}
	return tokens, logprobs, nucleus, nil
}

// checkDraw checks StepSample's sampling arguments before anything is
// appended.
func checkDraw(feed [][]int, us []float64, temperature, topP float64) error {
	if !(temperature >= 0) || !(topP > 0 && topP <= 1) {
		return fmt.Errorf("policy: StepSample at temperature %g (want ≥ 0) and top_p %g (want in (0, 1])", temperature, topP)
	}
	if temperature == 0 {
		return nil
	}
	if len(us) != len(feed) {
		panic(fmt.Sprintf("policy: StepSample got %d uniforms for %d feeds", len(us), len(feed)))
	}
	for i, f := range feed {
		if u := us[i]; len(f) > 0 && !(u >= 0 && u < 1) {
			return fmt.Errorf("policy: StepSample: sequence %d's uniform %g is outside [0, 1)", i, u)
		}
	}
	return nil
}

// drawSpans runs the laid-out rows through the model and the backend's
// sampler and returns, on the host, the S spans' tokens, log-probs and
// nucleus log-probs, one after the other ([3, S]).
func (s *Session) drawSpans(smp backend.Sampler, lay layout, us []float64, temperature, topP float32) ([]float32, error) {
	be, S := s.m.be, len(lay.spans)
	logits, err := s.headLogits(lay) // [S, V]
	if err != nil {
		return nil, err
	}
	defer be.Free(logits)
	var du backend.Tensor // [S]
	if temperature > 0 {
		u := make([]float32, S)
		for k, sp := range lay.spans {
			u[k] = float32(us[sp.seq]) // 1 only within 2⁻²⁵ of it: the nucleus's last token
		}
		if du, err = be.Mirror(u); err != nil {
			return nil, err
		}
		defer be.Free(du)
	}
	out, err := be.Alloc(3 * S) // [3, S]
	if err != nil {
		return nil, err
	}
	defer be.Free(out)
	if err := smp.Sample(out.Slice(0, S), out.Slice(S, 2*S), out.Slice(2*S, 3*S), logits, du, S, s.g.V, temperature, topP); err != nil {
		return nil, err
	}
	return download(be, out)
}
