package trainer

import (
	"fmt"
	"math"
	"strings"
)

// Policy surrogates (LossConfig.Loss, the grpo.loss key).
const (
	// LossPPOClip is PPO's clipped surrogate per token with the optional
	// dual clip (Schulman et al., arXiv 1707.06347; ARTIST eq. 1): the
	// default.
	LossPPOClip = "ppo_clip"
	// LossGSPO is Group Sequence Policy Optimization (Zheng et al., arXiv
	// 2507.18071): one length-normalised importance ratio per sequence,
	// clipped per sequence.
	LossGSPO = "gspo"
	// LossCISPO is Clipped IS-weight Policy Optimization (MiniMax-M1,
	// arXiv 2506.13585, §3.1): a clipped, stop-gradient importance weight
	// times the log-probability, so that no token loses its gradient.
	LossCISPO = "cispo"
)

// GSPO's clip range (Zheng et al.'s experiments; verl's GSPO recipe),
// far smaller than PPO's because it bounds a per-token geometric mean.
const (
	GSPOEpsLow  = 3e-4
	GSPOEpsHigh = 4e-4
)

// gspoLogRatioMax bounds log s_i from above before exp, as verl does.
const gspoLogRatioMax = 10

// Surrogate is one mask-1 token's policy term: the surrogate Value s
// (the loss holds −s, before the token's importance weight, the KL term
// and the aggregation), Grad = ∂(−s)/∂logp with respect to the token's
// current log-probability, and which clip is active (for clip/frac and
// clip/frac_lower).
type Surrogate struct {
	Value, Grad          float64
	Clipped, DualClipped bool
}

// SurrogateFunc fills dst[t] for every mask-1 token t of s; dst spans the
// sequence and starts zero. It sees the whole sequence so that a
// sequence-level objective can pool its tokens. It reads the LossConfig
// fields it uses (EpsLow, EpsHigh, ClipRatioC); PolicyLoss adds the
// importance weight, the KL term and the aggregation, and its gradient
// contract (Coef = ∂Loss/∂LogP) holds when Grad is the derivative of −s
// through the token's log-probability (stop-gradients as the objective
// defines them).
type SurrogateFunc func(cfg LossConfig, s SeqInput, dst []Surrogate)

var lossRegistry = newRegistry[SurrogateFunc]("policy loss")

func init() {
	RegisterLoss(LossPPOClip, ppoClipSurrogate)
	RegisterLoss(LossGSPO, gspoSurrogate)
	RegisterLoss(LossCISPO, cispoSurrogate)
}

// RegisterLoss adds a policy surrogate under name, selectable as
// LossConfig.Loss and the grpo.loss key. Built in: "ppo_clip", "gspo",
// "cispo". It panics on an empty name, a nil fn, or a name already
// registered.
func RegisterLoss(name string, fn SurrogateFunc) {
	if name == "" || fn == nil {
		panic("trainer: RegisterLoss needs a name and a function")
	}
	lossRegistry.add(name, fn)
}

// LossByName returns the surrogate registered under name ("" is
// "ppo_clip"), or an error that lists the valid names.
func LossByName(name string) (SurrogateFunc, error) {
	if name == "" {
		name = LossPPOClip
	}
	if fn, ok := lossRegistry.get(name); ok {
		return fn, nil
	}
	names := lossRegistry.names(nil)
	return nil, fmt.Errorf("trainer: unknown loss %q (valid: %s)", name, strings.Join(names, ", "))
}

// lossSurrogate is LossByName for a validated config.
func lossSurrogate(name string) SurrogateFunc {
	fn, err := LossByName(name)
	if err != nil {
		panic(err)
	}
	return fn
}

// validateLoss checks that the loss is registered and refuses the
// options a built-in surrogate has no use for.
func (c LossConfig) validateLoss() error {
	if _, err := LossByName(c.Loss); err != nil {
		return err
	}
	if (c.Loss == LossGSPO || c.Loss == LossCISPO) && c.ClipRatioC != 0 {
		return fmt.Errorf("trainer: loss %s does not use clip_ratio_c (dual clip); set it to 0", c.Loss)
	}
	return nil
}

// ppoClipSurrogate is PolicyLoss's per-token clipped surrogate:
//
//	r = exp(clamp(logp − old, ±20))
//	s = min(r·A, clip(r, 1−EpsLow, 1+EpsHigh)·A)
//	s = max(s, c·A)  where A < 0, when c = ClipRatioC > 0
//	∂(−s)/∂logp = −A·r (unclipped branch active, ties included) or 0
func ppoClipSurrogate(cfg LossConfig, s SeqInput, dst []Surrogate) {
	for t, m := range s.Mask {
		if m != 0 {
			dst[t] = ppoClipToken(cfg, float64(s.LogP[t])-float64(s.OldLogP[t]), s.Adv)
		}
	}
}

func ppoClipToken(cfg LossConfig, logRatio, adv float64) Surrogate {
	lr, dlr := clampGrad(logRatio, logRatioClamp)
	r := math.Exp(lr)
	unclipped := r * adv
	bounded := math.Min(math.Max(r, 1-cfg.EpsLow), 1+cfg.EpsHigh) * adv
	var sur Surrogate
	if unclipped <= bounded {
		sur.Value = unclipped
		sur.Grad = -adv * r * dlr
	} else {
		sur.Value = bounded
		sur.Clipped = true
	}
	if c := cfg.ClipRatioC; c > 0 && adv < 0 && c*adv > sur.Value {
		sur.Value, sur.Grad, sur.DualClipped = c*adv, 0, true
	}
	return sur
}

// gspoSurrogate is GSPO's sequence-level clipped objective (Zheng et al.,
// arXiv 2507.18071; its GSPO-token form for the gradient), as verl's
// compute_policy_loss_gspo computes it. Over the n mask-1
// tokens of a sequence:
//
//	log s = min((1/n) Σ_t (logp_t − old_t), 10)
//	s_i   = exp(log s)
//	v     = min(s_i·A, clip(s_i, 1−EpsLow, 1+EpsHigh)·A)   on every token
//	∂(−v)/∂logp_t = −A·s_i (unclipped) or 0 (clipped, or log s saturated)
//
// The gradient is that of verl's token form s_i,t = sg(s_i)·π_t/sg(π_t):
// each token gets −A·s_i, which the aggregation divides by n under
// seq-mean-token-mean, so that it equals the derivative of −A·s_i itself
// (∂s_i/∂logp_t = s_i/n). The paper and verl aggregate with
// seq-mean-token-mean (verl forces it); the other modes reweigh
// sequences by length. Use GSPO's clip range, GSPOEpsLow and GSPOEpsHigh.
func gspoSurrogate(cfg LossConfig, s SeqInput, dst []Surrogate) {
	n, sum := 0, 0.0
	for t, m := range s.Mask {
		if m != 0 {
			n++
			sum += float64(s.LogP[t]) - float64(s.OldLogP[t])
		}
	}
	if n == 0 {
		return
	}
	lr, dlr := sum/float64(n), 1.0
	if lr > gspoLogRatioMax {
		lr, dlr = gspoLogRatioMax, 0
	}
	r := math.Exp(lr)
	unclipped := r * s.Adv
	bounded := math.Min(math.Max(r, 1-cfg.EpsLow), 1+cfg.EpsHigh) * s.Adv
	sur := Surrogate{Value: unclipped, Grad: -s.Adv * r * dlr}
	if unclipped > bounded {
		sur = Surrogate{Value: bounded, Clipped: true}
	}
	for t, m := range s.Mask {
		if m != 0 {
			dst[t] = sur
		}
	}
}

// cispoSurrogate is CISPO (MiniMax-M1, arXiv 2506.13585, §3.1):
// the importance weight is clipped from above only and passes no
// gradient, so every token keeps the gradient of its log-probability:
//
//	r = exp(clamp(logp − old, ±20)),  ŵ = sg(min(r, 1+EpsHigh))
//	v = ŵ·A·logp,  ∂(−v)/∂logp = −ŵ·A
//
// the token counting as clipped where r > 1+EpsHigh. This is verl's
// compute_policy_loss_cispo with its example's clip_ratio_low = 10 (no
// lower bound: MiniMax-M1 sets ε_low^IS large); EpsLow is not used. The
// loss value −ŵ·A·logp is not the PPO surrogate's scale: compare
// loss/policy only between runs with the same loss.
func cispoSurrogate(cfg LossConfig, s SeqInput, dst []Surrogate) {
	hi := 1 + cfg.EpsHigh
	for t, m := range s.Mask {
		if m == 0 {
			continue
		}
		logp := float64(s.LogP[t])
		lr, _ := clampGrad(logp-float64(s.OldLogP[t]), logRatioClamp)
		r := math.Exp(lr)
		w := math.Min(r, hi)
		dst[t] = Surrogate{Value: w * s.Adv * logp, Grad: -w * s.Adv, Clipped: r > hi}
	}
}
