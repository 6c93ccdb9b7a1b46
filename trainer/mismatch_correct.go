package trainer

import (
	"fmt"
	"math"
)

// MismatchStats measure how far the trainer's log-probs are from the
// sampler's over a batch's mask-1 tokens (verl's rollout_corr/ metrics).
type MismatchStats struct {
	// KLK1 = mean_t(log π_sampler − log π_train), the k1 estimate of
	// KL(π_sampler ‖ π_train) (verl's kl).
	KLK1 float64
	// KLK3 = mean_t(ρ_t − ℓ_t − 1) with ℓ_t unclamped, the k3 estimate of
	// the same KL, never negative (verl's k3_kl).
	KLK3 float64
	// LogPPLDiff = mean_i(mean_t log π_sampler − mean_t log π_train) over
	// sequences with a loss token: log(PPL_train / PPL_sampler) (verl's
	// log_ppl_diff); LogPPLAbsDiff averages its absolute value.
	LogPPLDiff, LogPPLAbsDiff float64
	// ESS = (mean w)² / mean(w²) over tokens, the effective sample size
	// as a fraction of the tokens (verl's rollout_is_eff_sample_size),
	// of the importance weights applied, or of the raw ratios ρ_t when
	// none are.
	ESS float64
	// MaskedTokenFrac is the fraction of mask-1 tokens that rejection
	// dropped; MaskedSeqFrac the fraction of sequences with a loss token
	// that lost at least one.
	MaskedTokenFrac, MaskedSeqFrac float64
	// MaxRatio is the largest token ratio ρ_t (ℓ_t clamped to ±20).
	MaxRatio float64
}

// Metrics returns the stats under mismatch/ metric names.
func (s MismatchStats) Metrics() Metrics {
	return Metrics{
		"mismatch/kl_k1": s.KLK1, "mismatch/kl_k3": s.KLK3,
		"mismatch/log_ppl_diff": s.LogPPLDiff, "mismatch/log_ppl_abs_diff": s.LogPPLAbsDiff,
		"mismatch/ess": s.ESS, "mismatch/max_ratio": s.MaxRatio,
		"mismatch/masked_token_frac": s.MaskedTokenFrac, "mismatch/masked_seq_frac": s.MaskedSeqFrac,
	}
}

// Mismatch measures in. weights, when not nil, are the importance weights
// applied (shaped as in.Mask), for ESS; kept, when not nil, is the mask
// after rejection, for the masked fractions. A batch with no mask-1
// token gives zero stats (ESS 1).
func Mismatch(in MismatchInput, weights [][]float64, kept [][]uint8) MismatchStats {
	in.check()
	var acc mismatchSums
	for i := range in.Mask {
		acc.addSeq(in, i, weights, kept)
	}
	if acc.tokens == 0 {
		return MismatchStats{ESS: 1}
	}
	st := acc.st
	nt, ns := float64(acc.tokens), float64(acc.seqs)
	st.KLK1, st.KLK3 = st.KLK1/nt, st.KLK3/nt
	st.LogPPLDiff, st.LogPPLAbsDiff = st.LogPPLDiff/ns, st.LogPPLAbsDiff/ns
	st.MaskedTokenFrac /= nt
	st.MaskedSeqFrac /= ns
	st.ESS = 1
	if acc.sw2 > 0 {
		st.ESS = (acc.sw / nt) * (acc.sw / nt) / (acc.sw2 / nt)
	}
	return st
}

// mismatchSums accumulates Mismatch's sums: in st the per-token and
// per-sequence sums of each stat, sw and sw2 the weights and their
// squares, and the counts of tokens and non-empty sequences.
type mismatchSums struct {
	st           MismatchStats
	sw, sw2      float64
	tokens, seqs int
}

// addSeq adds sequence i's mask-1 tokens.
func (a *mismatchSums) addSeq(in MismatchInput, i int, weights [][]float64, kept [][]uint8) {
	var n, dropped int
	var sumS, sumT float64
	for t, m := range in.Mask[i] {
		if m == 0 {
			continue
		}
		l := in.logRatio(i, t)
		lc, _ := clampGrad(l, logRatioClamp)
		rho := math.Exp(lc)
		a.st.KLK1 -= l
		a.st.KLK3 += math.Exp(l) - l - 1
		a.st.MaxRatio = math.Max(a.st.MaxRatio, rho)
		w := rho
		if weights != nil {
			w = weights[i][t]
		}
		a.sw, a.sw2 = a.sw+w, a.sw2+w*w
		sumS, sumT = sumS+float64(in.Sampler[i][t]), sumT+float64(in.Train[i][t])
		if kept != nil && kept[i][t] == 0 {
			dropped++
		}
		n++
	}
	if n == 0 {
		return
	}
	d := (sumS - sumT) / float64(n)
	a.st.LogPPLDiff += d
	a.st.LogPPLAbsDiff += math.Abs(d)
	a.st.MaskedTokenFrac += float64(dropped)
	if dropped > 0 {
		a.st.MaskedSeqFrac++
	}
	a.tokens += n
	a.seqs++
}

// RolloutCorrectionConfig is grpo.rollout_correction: importance weights
// and rejection for the mismatch between the sampler's log-probs and the
// trainer's. Off by default (IS and RS empty).
type RolloutCorrectionConfig struct {
	// IS is the importance-weight level: "" (off, default), "token"
	// (TokenISWeights) or "sequence" (SequenceISWeights).
	IS string `yaml:"is"`
	// ISCap is C of the truncated weight min(ρ, C). Default 2 (verl's
	// rollout_is_threshold); > 0.
	ISCap float64 `yaml:"is_cap"`
	// RS is the rejection mode: "" (off, default), "token", "sequence" or
	// "geometric" (RejectionMask).
	RS string `yaml:"rs"`
	// RSLow and RSHigh bound the ratio a token or sequence must keep to
	// stay in the loss. RSHigh default 2; RSLow 0 (default) means
	// 1/RSHigh. 0 < RSLow ≤ RSHigh.
	RSLow  float64 `yaml:"rs_low"`
	RSHigh float64 `yaml:"rs_high"`
	// KLJump is the rise of mismatch/kl_k3 from one step to the next
	// (at the same staleness) that the run log reports as the sign of a
	// weight-sync failure: the sampler then draws from other weights
	// than the trainer's, and the KL jumps from the numerical mismatch to
	// the distance between policies. It is read with the correction on
	// or off. Default DefaultKLJump (1e-3); 0 turns the report off; ≥ 0.
	KLJump float64 `yaml:"kl_jump"`
}

// DefaultRolloutCorrectionConfig returns the documented defaults: off,
// with the bounds ready for when a mode is set.
func DefaultRolloutCorrectionConfig() RolloutCorrectionConfig {
	return RolloutCorrectionConfig{ISCap: 2, RSHigh: 2, KLJump: DefaultKLJump}
}

// Enabled reports whether the config weighs or rejects anything.
func (c RolloutCorrectionConfig) Enabled() bool { return c.IS != "" || c.RS != "" }

// band is the rejection band [lo, hi] with RSLow's default resolved.
func (c RolloutCorrectionConfig) band() (float64, float64) {
	if c.RSLow == 0 {
		return 1 / c.RSHigh, c.RSHigh
	}
	return c.RSLow, c.RSHigh
}

// Validate names the first bad key and how to fix it.
func (c RolloutCorrectionConfig) Validate() error {
	const p = "config: grpo.rollout_correction."
	switch {
	case c.IS != "" && c.IS != "token" && c.IS != "sequence":
		return fmt.Errorf(p+"is %q is unknown: use token, sequence, or leave it empty (off)", c.IS)
	case c.IS != "" && (!(c.ISCap > 0) || math.IsInf(c.ISCap, 1)):
		return fmt.Errorf(p+"is_cap must be a finite value > 0 (verl uses 2), got %v", c.ISCap)
	case c.RS != "" && c.RS != RejectToken && c.RS != RejectSequence && c.RS != RejectGeometric:
		return fmt.Errorf(p+"rs %q is unknown: use %s, %s, %s, or leave it empty (off)", c.RS, RejectToken, RejectSequence, RejectGeometric)
	case c.RS != "" && (!(c.RSHigh > 0) || math.IsInf(c.RSHigh, 1)):
		return fmt.Errorf(p+"rs_high must be a finite value > 0, got %v", c.RSHigh)
	case c.RS != "" && (!(c.RSLow >= 0) || c.RSLow > c.RSHigh):
		return fmt.Errorf(p+"rs_low must be 0 (meaning 1/rs_high) or in (0, rs_high = %v], got %v", c.RSHigh, c.RSLow)
	case !(c.KLJump >= 0) || math.IsInf(c.KLJump, 1):
		return fmt.Errorf(p+"kl_jump must be 0 (no report) or a finite value > 0 (default %g), got %v", DefaultKLJump, c.KLJump)
	}
	return nil
}

// Correction is what CorrectRollouts gives the loss: the importance
// weights (nil when IS is off) and the mask after rejection, with the
// batch's stats.
type Correction struct {
	Weights [][]float64
	Mask    [][]uint8
	Stats   MismatchStats
}

// CorrectRollouts applies cfg to in: the weights of cfg.IS, the mask of
// cfg.RS (in.Mask itself when off), and Mismatch over the original mask.
// It panics when cfg is invalid.
func CorrectRollouts(cfg RolloutCorrectionConfig, in MismatchInput) Correction {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	c := Correction{Mask: in.Mask}
	switch cfg.IS {
	case "token":
		c.Weights = TokenISWeights(in, cfg.ISCap)
	case "sequence":
		c.Weights = SequenceISWeights(in, cfg.ISCap)
	}
	var kept [][]uint8
	if cfg.RS != "" {
		lo, hi := cfg.band()
		kept = RejectionMask(in, cfg.RS, lo, hi)
		c.Mask = kept
	}
	c.Stats = Mismatch(in, c.Weights, kept)
	return c
}
