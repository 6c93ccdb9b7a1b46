package trainer

import (
	"fmt"
	"math"
)

// Rollout-training mismatch. The sampler (an inference server, another
// kernel or precision) and the trainer compute different log-probs of the
// same tokens, so even a synchronous step is slightly off-policy. The
// importance ratio of a token is
//
//	ρ_t = π_train(y_t) / π_sampler(y_t) = exp(clamp(ℓ_t, ±20)),
//	ℓ_t = log π_train(y_t) − log π_sampler(y_t)
//
// Truncated importance sampling (TIS: Yao et al., "Your Efficient RL
// Framework Secretly Brings You Off-Policy RL Training", 2025) weighs each
// token's policy loss by min(ρ, C); masked importance sampling and
// rejection (Liu et al., "When Speed Kills Stability", 2025) drop tokens
// or sequences whose ratio leaves a band. These are verl's rollout
// correction (rollout_corr_helper.py) as pure functions; the loss takes
// the weights as SeqInput.ISWeight and the mask as SeqInput.Mask.

// MismatchInput is a batch's two sets of log-probs of the same tokens.
// Train, Sampler and Mask have one row per sequence, of equal lengths;
// only positions with a nonzero mask are read.
type MismatchInput struct {
	Train   [][]float32 // log π_train: the trainer's log-probs (verl's old_log_prob)
	Sampler [][]float32 // log π_sampler: recorded at sampling (verl's rollout_log_probs)
	Mask    [][]uint8   // 1 for model tokens
}

// check panics when the rows do not line up: the caller built the batch
// wrong.
func (in MismatchInput) check() {
	if len(in.Train) != len(in.Mask) || len(in.Sampler) != len(in.Mask) {
		panic(fmt.Sprintf("trainer: mismatch: %d train, %d sampler, %d mask rows", len(in.Train), len(in.Sampler), len(in.Mask)))
	}
	for i, m := range in.Mask {
		if len(in.Train[i]) != len(m) || len(in.Sampler[i]) != len(m) {
			panic(fmt.Sprintf("trainer: mismatch: sequence %d has %d mask, %d train, %d sampler values", i, len(m), len(in.Train[i]), len(in.Sampler[i])))
		}
	}
}

// logRatio is ℓ_t of sequence i, unclamped.
func (in MismatchInput) logRatio(i, t int) float64 {
	return float64(in.Train[i][t]) - float64(in.Sampler[i][t])
}

// seqLogRatio is Σ_t ℓ_t over sequence i's mask-1 tokens, each clamped to
// ±20 first when clampTokens, and their count.
func (in MismatchInput) seqLogRatio(i int, clampTokens bool) (float64, int) {
	sum, n := 0.0, 0
	for t, m := range in.Mask[i] {
		if m == 0 {
			continue
		}
		l := in.logRatio(i, t)
		if clampTokens {
			l, _ = clampGrad(l, logRatioClamp)
		}
		sum += l
		n++
	}
	return sum, n
}

// TokenISWeights are the truncated per-token importance weights
// min(ρ_t, cap) (verl's rollout_is "token" with a single threshold), 0
// where the mask is 0. It panics when cap ≤ 0.
func TokenISWeights(in MismatchInput, cap float64) [][]float64 {
	in.check()
	checkCap(cap)
	out := make([][]float64, len(in.Mask))
	for i, mask := range in.Mask {
		out[i] = make([]float64, len(mask))
		for t, m := range mask {
			if m != 0 {
				l, _ := clampGrad(in.logRatio(i, t), logRatioClamp)
				out[i][t] = math.Min(math.Exp(l), cap)
			}
		}
	}
	return out
}

// SequenceISWeights are the truncated sequence importance weights
// min(exp(clamp(Σ_t ℓ_t, ±20)), cap), the product of a sequence's token
// ratios (verl's rollout_is "sequence"), on every mask-1 token of the
// sequence and 0 elsewhere. It panics when cap ≤ 0.
func SequenceISWeights(in MismatchInput, cap float64) [][]float64 {
	in.check()
	checkCap(cap)
	out := make([][]float64, len(in.Mask))
	for i, mask := range in.Mask {
		out[i] = make([]float64, len(mask))
		sum, _ := in.seqLogRatio(i, false)
		l, _ := clampGrad(sum, logRatioClamp)
		w := math.Min(math.Exp(l), cap)
		for t, m := range mask {
			if m != 0 {
				out[i][t] = w
			}
		}
	}
	return out
}

func checkCap(cap float64) {
	if !(cap > 0) {
		panic(fmt.Sprintf("trainer: importance weight cap %g must be > 0", cap))
	}
}

// Rejection modes (RolloutCorrectionConfig.RS).
const (
	// RejectToken drops each token whose ratio ρ_t leaves [lo, hi] (verl's
	// token_k1).
	RejectToken = "token"
	// RejectSequence drops a whole sequence whose ratio Π_t ρ_t =
	// exp(Σ_t ℓ_t) leaves [lo, hi] (verl's seq_sum_k1).
	RejectSequence = "sequence"
	// RejectGeometric drops a whole sequence whose geometric-mean ratio
	// exp((1/n) Σ_t ℓ_t) leaves [lo, hi] (verl's seq_mean_k1): a length-
	// independent band, so it can be tight (for example [0.999, 1.001]).
	RejectGeometric = "geometric"
)

// RejectionMask returns a copy of in.Mask with 0 on each token that mode
// rejects: a token (RejectToken) or every token of a sequence
// (RejectSequence, RejectGeometric) whose ratio falls outside [lo, hi].
// Ratios are compared in log space, bounds included, with each ℓ_t
// clamped to ±20 first, as verl does. verl states its k1 bounds on
// π_sampler/π_train, the inverse ratio: its "a_b" is [1/b, 1/a] here, the
// same band when lo = 1/hi. It panics on an unknown mode or unless
// 0 < lo ≤ hi.
func RejectionMask(in MismatchInput, mode string, lo, hi float64) [][]uint8 {
	in.check()
	if !(lo > 0 && lo <= hi) {
		panic(fmt.Sprintf("trainer: rejection band [%g, %g] must have 0 < lo <= hi", lo, hi))
	}
	logLo, logHi := math.Log(lo), math.Log(hi)
	inBand := func(l float64) bool { return l >= logLo && l <= logHi }
	out := make([][]uint8, len(in.Mask))
	for i, mask := range in.Mask {
		out[i] = append([]uint8(nil), mask...)
		switch mode {
		case RejectToken:
			for t, m := range mask {
				if l, _ := clampGrad(in.logRatio(i, t), logRatioClamp); m != 0 && !inBand(l) {
					out[i][t] = 0
				}
			}
			continue
		case RejectSequence, RejectGeometric:
		default:
			panic(fmt.Sprintf("trainer: unknown rejection mode %q (valid: %s, %s, %s)", mode, RejectToken, RejectSequence, RejectGeometric))
		}
		sum, n := in.seqLogRatio(i, true)
		if mode == RejectGeometric && n > 0 {
			sum /= float64(n)
		}
		if !inBand(sum) {
			clear(out[i])
		}
	}
	return out
}
