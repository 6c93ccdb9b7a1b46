package rollout

import "fmt"

// Where one sequence's next token is drawn: on the host from the logits
// its session returns, or where the logits are computed (a row of a
// Batcher over a DeviceSession, or a DeviceSession itself), bringing
// back only the token and its two log-probs. Both invert the same
// uniform number u, so a seed fixes the tokens either way, up to the
// float32 rounding of the device's sums.

// drawn is one sampled token with its log-prob under softmax(logits/T),
// its nucleus log-prob, and the logits it was drawn from when the host
// drew it (nil when the session drew it).
type drawn struct {
	tok     int
	lp, nuc float32
	logits  []float32
}

// stepFunc feeds one sequence feed (not empty) and draws its next token
// at u with s.
type stepFunc func(feed []int, u float64, s sampler) (drawn, error)

// drawer is a session of one sequence that can draw its next token
// where it computes the logits (*BatchRow).
type drawer interface {
	stepDraw(feed []int, u float64, s sampler) (drawn, error)
}

// stepperOf returns how completeIn steps sess: through the session's
// own drawing unless the caller needs the logits, else Step and the
// host sampler.
func stepperOf(sess Session, needLogits bool) stepFunc {
	if !needLogits {
		if d, ok := sess.(drawer); ok {
			return d.stepDraw
		}
		if ds, ok := sess.(DeviceSession); ok && ds.CanSampleOnDevice() {
			return func(feed []int, u float64, s sampler) (drawn, error) {
				return drawOnDevice(ds, [][]int{feed}, []float64{u}, s, 0)
			}
		}
	}
	return func(feed []int, u float64, s sampler) (drawn, error) {
		logits, err := sess.Step([][]int{feed})
		if err != nil {
			return drawn{}, err
		}
		return hostDraw(logits[0], u, s)
	}
}

// hostDraw draws from logits on the host.
func hostDraw(logits []float32, u float64, s sampler) (drawn, error) {
	tok, lp, nuc, err := s.draw(logits, u)
	return drawn{tok: tok, lp: lp, nuc: nuc, logits: logits}, err
}

// drawOnDevice steps ds on feed, drawing row i at us[i] (us is not read
// at temperature 0), and returns row i's token.
func drawOnDevice(ds DeviceSession, feed [][]int, us []float64, s sampler, i int) (drawn, error) {
	toks, lps, nucs, err := sampleOnDevice(ds, feed, us, s)
	if err != nil {
		return drawn{}, err
	}
	return drawn{tok: toks[i], lp: lps[i], nuc: nucs[i]}, nil
}

// sampleOnDevice is ds.StepSample with its answer checked: a token for
// every sequence, and one at or above 0 for every fed sequence.
func sampleOnDevice(ds DeviceSession, feed [][]int, us []float64, s sampler) (toks []int, lps, nucs []float32, err error) {
	if s.temperature == 0 {
		us = nil
	}
	toks, lps, nucs, err = ds.StepSample(feed, us, s.temperature, min(s.topP, 1))
	if err != nil {
		return nil, nil, nil, err
	}
	if len(toks) != len(feed) || len(lps) != len(feed) || len(nucs) != len(feed) {
		return nil, nil, nil, fmt.Errorf("session drew %d tokens for %d sequences", len(toks), len(feed))
	}
	for i, f := range feed {
		if len(f) > 0 && toks[i] < 0 {
			return nil, nil, nil, fmt.Errorf("sequence %d: the session drew no token", i)
		}
	}
	return toks, lps, nucs, nil
}
