package trainer

import (
	"fmt"
	"math"
)

// GroupAdvantages computes group-relative advantages (ARTIST, arXiv
// 2505.01441, eq. 1; docs/ARCHITECTURE.md, "Advantage"). rewards holds
// len(rewards)/groupSize consecutive groups of groupSize rollouts of one
// prompt each. For rollout i of group g:
//
//	A_i = (R_i − mean(R_g)) / (std(R_g) + eps)   when scaleStd (GRPO)
//	A_i =  R_i − mean(R_g)                       otherwise (Dr. GRPO)
//
// std is the unbiased sample standard deviation, sqrt(Σ(R−mean)²/(n−1)),
// the estimator TRL and verl use (torch.std), so advantages match theirs.
// A group whose rewards are all exactly equal (including a group of one,
// whose spread is undefined) gets advantages of exactly 0 and is counted in
// the second result, the source of reward/frac_zero_std.
//
// It panics when groupSize < 1 or len(rewards) is not a multiple of
// groupSize: the caller built the batch wrong.
func GroupAdvantages(rewards []float64, groupSize int, scaleStd bool, eps float64) ([]float64, int) {
	if groupSize < 1 || len(rewards)%groupSize != 0 {
		panic(fmt.Sprintf("trainer: GroupAdvantages: %d rewards do not split into groups of %d", len(rewards), groupSize))
	}
	adv := make([]float64, len(rewards))
	zero := 0
	for lo := 0; lo < len(rewards); lo += groupSize {
		if !groupAdvantage(rewards[lo:lo+groupSize], adv[lo:lo+groupSize], scaleStd, eps) {
			zero++
		}
	}
	return adv, zero
}

// groupAdvantage fills dst with the advantages of one group and reports
// whether the group has any reward spread; dst stays zero when it has none.
func groupAdvantage(r, dst []float64, scaleStd bool, eps float64) bool {
	if !hasSpread(r) {
		return false
	}
	mean := 0.0
	for _, x := range r {
		mean += x
	}
	mean /= float64(len(r))
	ss := 0.0
	for _, x := range r {
		ss += (x - mean) * (x - mean)
	}
	scale := 1.0
	if scaleStd {
		scale = 1 / (math.Sqrt(ss/float64(len(r)-1)) + eps)
	}
	for i, x := range r {
		dst[i] = (x - mean) * scale
	}
	return true
}

// Loss aggregation modes (LossConfig.Agg).
const (
	// AggSeqMeanTokenMean averages each sequence's per-token losses over its
	// mask-1 tokens, then averages over sequences (the paper, eq. 1).
	AggSeqMeanTokenMean = "seq-mean-token-mean"
	// AggTokenMean averages over all mask-1 tokens of the batch.
	AggTokenMean = "token-mean"
	// AggSeqMeanTokenSumNorm divides each sequence's token sum by the
	// constant LossConfig.MaxTokens, then averages over sequences (Dr. GRPO).
	AggSeqMeanTokenSumNorm = "seq-mean-token-sum-norm"
)

// logRatioClamp bounds log-ratios before exp (docs/ARCHITECTURE.md: ±20).
const logRatioClamp = 20

// LossConfig sets the clipped-surrogate loss of eq. 1.
type LossConfig struct {
	// EpsLow is the lower clip range: ratios below 1−EpsLow are clipped.
	// Default 0.2; must lie in [0, 1).
	EpsLow float64 `yaml:"eps_low"`
	// EpsHigh is the upper clip range: ratios above 1+EpsHigh are clipped.
	// Default 0.2 (DAPO's clip-higher uses 0.28); must be ≥ 0.
	EpsHigh float64 `yaml:"eps_high"`
	// Beta weighs the k3 KL penalty to the reference policy. Default 0 (no
	// reference pass needed); must be ≥ 0.
	Beta float64 `yaml:"beta"`
	// Agg is the aggregation mode, one of the Agg* constants. Default
	// AggSeqMeanTokenMean.
	Agg string `yaml:"agg"`
	// MaxTokens is the constant divisor of AggSeqMeanTokenSumNorm, usually
	// the response token budget. Default 0; must be > 0 in that mode.
	MaxTokens int `yaml:"max_tokens"`
	// ClipRatioC is dual-clip PPO's bound for negative advantages (Ye et
	// al., arXiv 1912.09729; verl's clip_ratio_c): where A < 0 a token's
	// loss is at most −A·ClipRatioC, so a ratio far above 1 cannot blow
	// up the loss. 0 (default) disables it; otherwise it must be > 1
	// (verl uses 3).
	ClipRatioC float64 `yaml:"clip_ratio_c"`
	// KLClamp bounds the k3 term to [−KLClamp, KLClamp] where it enters
	// the loss, as verl's "low_var_kl" does with 10; the clamp passes no
	// gradient where it saturates. 0 (default) leaves k3 unbounded.
	KLClamp float64 `yaml:"kl_clamp"`
	// EmptySeqs says how the sequence-mean modes treat a sequence with no
	// mask-1 tokens: EmptyCount ("count", default; "" means the same)
	// or EmptyExclude ("exclude"). token-mean is the same under both.
	EmptySeqs string `yaml:"empty_seqs"`
	// Loss names the policy surrogate in the loss registry: LossPPOClip
	// ("ppo_clip", default; "" means the same), LossGSPO ("gspo"),
	// LossCISPO ("cispo"), or one added with RegisterLoss.
	Loss string `yaml:"loss"`
}

// Conventions for sequences with no mask-1 tokens (LossConfig.EmptySeqs).
const (
	// EmptyCount lets an empty sequence count in N: it adds 0 to the sum
	// and still divides it, as TRL does.
	EmptyCount = "count"
	// EmptyExclude leaves empty sequences out of N, as verl's agg_loss
	// does (its seq_mask of sequences with at least one loss token).
	EmptyExclude = "exclude"
)

// DefaultLossConfig returns the documented defaults.
func DefaultLossConfig() LossConfig {
	return LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Agg: AggSeqMeanTokenMean, EmptySeqs: EmptyCount, Loss: LossPPOClip}
}

// Validate names the first bad field and how to fix it.
func (c LossConfig) Validate() error {
	switch {
	case !(c.EpsLow >= 0 && c.EpsLow < 1):
		return fmt.Errorf("trainer: eps_low = %g must be in [0, 1) (the paper uses 0.2)", c.EpsLow)
	case !(c.EpsHigh >= 0) || math.IsInf(c.EpsHigh, 1):
		return fmt.Errorf("trainer: eps_high = %g must be a finite value ≥ 0 (the paper uses 0.2)", c.EpsHigh)
	case !(c.Beta >= 0) || math.IsInf(c.Beta, 1):
		return fmt.Errorf("trainer: beta = %g must be a finite value ≥ 0 (0 disables the KL term)", c.Beta)
	case !(c.ClipRatioC == 0 || c.ClipRatioC > 1) || math.IsInf(c.ClipRatioC, 1):
		return fmt.Errorf("trainer: clip_ratio_c = %g must be 0 (off) or a finite value > 1 (verl uses 3)", c.ClipRatioC)
	case !(c.KLClamp >= 0) || math.IsInf(c.KLClamp, 1):
		return fmt.Errorf("trainer: kl_clamp = %g must be 0 (off) or a finite value > 0 (verl uses 10)", c.KLClamp)
	case c.EmptySeqs != "" && c.EmptySeqs != EmptyCount && c.EmptySeqs != EmptyExclude:
		return fmt.Errorf("trainer: unknown empty_seqs %q (valid: %s, the default, or %s)", c.EmptySeqs, EmptyCount, EmptyExclude)
	}
	if err := c.validateLoss(); err != nil {
		return err
	}
	switch c.Agg {
	case AggSeqMeanTokenMean, AggTokenMean:
	case AggSeqMeanTokenSumNorm:
		if c.MaxTokens <= 0 {
			return fmt.Errorf("trainer: agg %q needs max_tokens > 0 (set it to the response token budget), got %d", c.Agg, c.MaxTokens)
		}
	default:
		return fmt.Errorf("trainer: unknown agg %q (valid: %s, %s, %s)", c.Agg, AggSeqMeanTokenMean, AggTokenMean, AggSeqMeanTokenSumNorm)
	}
	return nil
}

// SeqInput is one sequence of the loss. LogP, OldLogP, Mask (and RefLogP
// when Beta > 0) all span the sequence's full token length; only positions
// with a nonzero mask count, and values elsewhere are never read.
type SeqInput struct {
	LogP    []float32 // log π_θ(token) under the current weights
	OldLogP []float32 // log π_old(token) at sampling time
	RefLogP []float32 // log π_ref(token); may be nil when Beta == 0
	Mask    []uint8   // 1 for model tokens, 0 for prompt and tool results
	Adv     float64   // the sequence's advantage A_i
	// ISWeight, when not nil, spans the sequence too and multiplies each
	// token's surrogate (and its gradient, not the KL term): the truncated
	// importance weight min(π_old/π_behav, C) of stale rollouts. nil
	// weighs every token 1.
	ISWeight []float32
}

// LossOutput is the aggregated loss, its parts and its gradient.
type LossOutput struct {
	Loss       float64 // Agg(−surrogate + β·k3), the value Coef differentiates
	PolicyLoss float64 // Agg(−surrogate), for loss/policy
	KL         float64 // mean k3 over all mask-1 tokens, for loss/kl (0 without RefLogP)
	ClipFrac   float64 // fraction of mask-1 tokens whose clipped branch is active, for clip/frac
	// ClipFracLower is the fraction of mask-1 tokens where the dual clip
	// −A·ClipRatioC is active (verl's pg_clipfrac_lower), for
	// clip/frac_lower; 0 when ClipRatioC is 0.
	ClipFracLower float64
	// Coef[i][t] = ∂Loss/∂LogP[i][t]; exactly 0 where Mask[i][t] == 0.
	Coef [][]float32
}

// PolicyLoss evaluates the GRPO objective (ARTIST, arXiv 2505.01441, eq. 1;
// docs/ARCHITECTURE.md, "Loss") as a loss to minimise, and its gradient with
// respect to the current log-probs. Per mask-1 token, with A the sequence's
// advantage and s the surrogate of cfg.Loss (the default, ppo_clip, below;
// gspo and cispo in objective.go; others through RegisterLoss):
//
//	r  = exp(clamp(logp − old, ±20))
//	s  = min(r·A, clip(r, 1−EpsLow, 1+EpsHigh)·A)
//	s  = max(s, c·A)  where A < 0, when c = ClipRatioC > 0 (dual clip)
//	d  = clamp(ref − logp, ±20),  k3 = exp(d) − d − 1
//	k3 = clamp(k3, ±KLClamp)  when KLClamp > 0
//	ℓ  = −w·s + β·k3
//	∂ℓ/∂logp = −w·A·r (unclipped branch active, ties included) or 0
//	           (clipped or dual-clipped) + β·(1 − exp(d))
//
// A clamp passes no gradient where it saturates, as torch.clamp does; the
// dual clip is active only where c·A is strictly the larger. w is the
// token's ISWeight (1 without one: the synchronous loss). This is
// verl's compute_policy_loss and kl_penalty("low_var_kl") term by term
// (testdata/verl_golden.json). When Beta == 0 but RefLogP is given, k3 is
// still measured for KL. The per-token losses are aggregated by cfg.Agg:
//
//	seq-mean-token-mean:      (1/N) Σ_i (1/n_i) Σ_t ℓ_it
//	token-mean:               (1/Σ_i n_i) Σ_i Σ_t ℓ_it
//	seq-mean-token-sum-norm:  (1/N) Σ_i (1/MaxTokens) Σ_t ℓ_it
//
// where n_i counts sequence i's mask-1 tokens. With EmptySeqs "count"
// (the default, as TRL) N = len(seqs): a sequence with no mask-1 tokens
// contributes 0 but still counts, so the scale of the loss does not depend
// on how many rollouts were emptied. With "exclude" (verl's agg_loss) N
// counts only the sequences with n_i > 0. token-mean is the same under
// both, and a batch with no mask-1 token at all has loss 0 and zero
// gradient. Everything is computed in float64.
//
// It panics when cfg is invalid or a sequence's slices differ in length
// (RefLogP is required only when Beta > 0): the caller built the batch wrong.
func PolicyLoss(cfg LossConfig, seqs []SeqInput) LossOutput {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	counts, total := maskCounts(cfg, seqs)
	numSeqs := len(seqs)
	if cfg.EmptySeqs == EmptyExclude {
		numSeqs = len(seqs) - countZero(counts)
	}
	surrogate := lossSurrogate(cfg.Loss)
	out := LossOutput{Coef: make([][]float32, len(seqs))}
	clipped, lower := 0, 0
	for i, s := range seqs {
		w := seqWeight(cfg, numSeqs, counts[i], total)
		coef := make([]float32, len(s.LogP))
		terms := make([]Surrogate, len(s.LogP))
		surrogate(cfg, s, terms)
		for t, m := range s.Mask {
			if m == 0 {
				continue
			}
			tok := tokenLoss(cfg, s, t, terms[t])
			out.Loss += w * (-tok.surr + cfg.Beta*tok.k3)
			out.PolicyLoss += w * -tok.surr
			out.KL += tok.k3
			coef[t] = float32(w * tok.grad)
			if tok.clipped {
				clipped++
			}
			if tok.dualClipped {
				lower++
			}
		}
		out.Coef[i] = coef
	}
	if total > 0 {
		out.KL /= float64(total)
		out.ClipFrac = float64(clipped) / float64(total)
		out.ClipFracLower = float64(lower) / float64(total)
	}
	return out
}

// maskCounts checks each sequence's shape and returns its mask-1 count and
// the batch total.
func maskCounts(cfg LossConfig, seqs []SeqInput) ([]int, int) {
	counts := make([]int, len(seqs))
	total := 0
	for i, s := range seqs {
		n := len(s.Mask)
		refOK := len(s.RefLogP) == n || (s.RefLogP == nil && cfg.Beta == 0)
		isOK := s.ISWeight == nil || len(s.ISWeight) == n
		if len(s.LogP) != n || len(s.OldLogP) != n || !refOK || !isOK {
			panic(fmt.Sprintf("trainer: PolicyLoss: sequence %d has %d mask, %d logp, %d old, %d ref, %d importance weight values (ref needed when beta > 0)",
				i, n, len(s.LogP), len(s.OldLogP), len(s.RefLogP), len(s.ISWeight)))
		}
		for _, m := range s.Mask {
			if m != 0 {
				counts[i]++
			}
		}
		total += counts[i]
	}
	return counts, total
}

// countZero counts the sequences with no mask-1 token.
func countZero(counts []int) int {
	n := 0
	for _, c := range counts {
		if c == 0 {
			n++
		}
	}
	return n
}

// seqWeight is the factor that multiplies each token loss of a sequence
// with n mask-1 tokens under cfg.Agg, numSeqs being the N of the sequence
// means; 0 when the divisor would be 0.
func seqWeight(cfg LossConfig, numSeqs, n, total int) float64 {
	switch cfg.Agg {
	case AggTokenMean:
		if total == 0 {
			return 0
		}
		return 1 / float64(total)
	case AggSeqMeanTokenSumNorm:
		if numSeqs == 0 {
			return 0
		}
		return 1 / (float64(numSeqs) * float64(cfg.MaxTokens))
	default:
		if n == 0 {
			return 0
		}
		return 1 / (float64(numSeqs) * float64(n))
	}
}

// tokenTerms are one token's surrogate s (its importance weight
// applied), k3, ∂ℓ/∂logp, whether the clipped branch is the strictly
// smaller one, and whether the dual clip c·A is strictly the larger.
type tokenTerms struct {
	surr, k3, grad       float64
	clipped, dualClipped bool
}

// tokenLoss completes the policy term sur of token t with the token's
// importance weight and the KL term.
func tokenLoss(cfg LossConfig, s SeqInput, t int, sur Surrogate) tokenTerms {
	tok := tokenTerms{surr: sur.Value, grad: sur.Grad, clipped: sur.Clipped, dualClipped: sur.DualClipped}
	if s.ISWeight != nil {
		w := float64(s.ISWeight[t])
		tok.surr, tok.grad = w*tok.surr, w*tok.grad
	}
	if s.RefLogP != nil {
		logp := float64(s.LogP[t])
		d, dd := clampGrad(float64(s.RefLogP[t])-logp, logRatioClamp)
		ed := math.Exp(d)
		tok.k3 = ed - d - 1
		dk := 1.0
		if cfg.KLClamp > 0 {
			tok.k3, dk = clampGrad(tok.k3, cfg.KLClamp)
		}
		tok.grad += cfg.Beta * (1 - ed) * dd * dk
	}
	return tok
}

// clampGrad clamps x to [−lim, lim] and returns the clamp's derivative:
// 1 inside (bounds included), 0 where it saturates.
func clampGrad(x, lim float64) (float64, float64) {
	switch {
	case x > lim:
		return lim, 0
	case x < -lim:
		return -lim, 0
	}
	return x, 1
}
