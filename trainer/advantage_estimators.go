package trainer

import (
	"fmt"
	"math"
)

// whitenEps is the ε under the square root of verl's masked_whiten.
const whitenEps = 1e-8

// RLOOAdvantages is the REINFORCE leave-one-out estimator (Kool et al.,
// 2019; Ahmadian et al., "Back to Basics", arXiv 2402.14740): each
// rollout's baseline is the mean reward of the other G−1 rollouts of its
// group,
//
//	A_i = R_i − (1/(G−1)) Σ_{j≠i} R_j = G/(G−1) · (R_i − mean(R_g))
//
// which is verl's compute_rloo_outcome_advantage and TRL's RLOO. A group
// of one keeps A_i = R_i, as verl does (it has no other rollout to
// compare with). A group whose rewards are all equal gets exactly 0 and
// is counted in the second result. It panics as GroupAdvantages does.
func RLOOAdvantages(rewards []float64, groupSize int, _ float64) ([]float64, int) {
	checkGroups("RLOOAdvantages", len(rewards), groupSize)
	adv := make([]float64, len(rewards))
	zero := 0
	for lo := 0; lo < len(rewards); lo += groupSize {
		r, dst := rewards[lo:lo+groupSize], adv[lo:lo+groupSize]
		if groupSize == 1 {
			copy(dst, r)
		}
		if !hasSpread(r) {
			zero++
			continue
		}
		m := meanOf(r)
		k := float64(groupSize) / float64(groupSize-1)
		for i, x := range r {
			dst[i] = k * (x - m)
		}
	}
	return adv, zero
}

// ReinforcePPAdvantages is REINFORCE++ (Hu et al., arXiv 2501.03262)
// on outcome rewards with γ = 1, where every token's return is the
// rollout's reward. With baseline false ("reinforce_pp", verl's
// reinforce_plus_plus) the returns x_i = R_i are normalised over the
// whole batch; with baseline true ("reinforce_pp_baseline", verl's
// reinforce_plus_plus_baseline) the group mean is subtracted first,
// x_i = R_i − mean(R_g) (0 as the baseline of a group of one, as verl).
// The batch normalisation is verl's masked_whiten over tokens:
//
//	μ = Σ_i n_i x_i / N,  σ² = Σ_i n_i (x_i − μ)² / (N − 1),  N = Σ_i n_i
//	A_i = (x_i − μ) / sqrt(σ² + 1e-8)
//
// with n_i = in.Tokens[i] (1 for every rollout when Tokens is nil). A
// rollout with n_i = 0 gets A_i = 0; a batch with N < 2 has no variance
// and gets all 0. The second result counts the groups whose rewards have
// zero spread (whose advantages whitening still moves off 0).
//
// What is left of verl's REINFORCE++: the KL-in-reward variant
// (use_kl_in_reward, r_t = −β·(log π_old − log π_ref) on every token) and
// γ < 1 give each token its own return, which a per-sequence advantage
// (SeqInput.Adv) cannot carry.
func ReinforcePPAdvantages(in AdvantageInput, baseline bool) ([]float64, int) {
	checkGroups("ReinforcePPAdvantages", len(in.Rewards), in.GroupSize)
	x := make([]float64, len(in.Rewards))
	zero := 0
	for lo := 0; lo < len(x); lo += in.GroupSize {
		r := in.Rewards[lo : lo+in.GroupSize]
		if !hasSpread(r) {
			zero++
		}
		m := 0.0
		if baseline && len(r) > 1 {
			m = meanOf(r)
		}
		for i, v := range r {
			x[lo+i] = v - m
		}
	}
	return whiten(x, in.Tokens), zero
}

// GDPOAdvantages is GDPO (Liu et al., "Group reward-Decoupled
// Normalization Policy Optimization", arXiv 2601.05242): each reward
// component is normalised within its group as GRPO normalises the total,
// the normalised components are summed with their weights, and the sum is
// normalised over the batch,
//
//	A_k,i = (c_k,i − mean_g(c_k)) / (std_g(c_k) + ε)      (GroupAdvantages)
//	S_i   = Σ_k w_k · A_k,i
//	A_i   = (S_i − μ) / sqrt(σ² + 1e-8)   (token-weighted, as ReinforcePPAdvantages)
//
// as verl's compute_gdpo_outcome_advantage with gdpo_reward_keys and
// gdpo_reward_weights. A component with no spread in a group adds 0
// there, so one that every rollout satisfies cannot drown the others. The
// second result counts the groups whose total rewards have zero spread.
// It panics when in.Components or in.Weights do not match the rewards;
// Estimate, which the training step calls, checks them first and returns
// an error instead.
func GDPOAdvantages(in AdvantageInput) ([]float64, int) {
	checkGroups("GDPOAdvantages", len(in.Rewards), in.GroupSize)
	if err := checkComponents(in); err != nil {
		panic("trainer: GDPOAdvantages: " + err.Error())
	}
	sum := make([]float64, len(in.Rewards))
	for k, c := range in.Components {
		a, _ := GroupAdvantages(c, in.GroupSize, true, in.Eps)
		for i, v := range a {
			sum[i] += in.Weights[k] * v
		}
	}
	zero := 0
	for lo := 0; lo < len(in.Rewards); lo += in.GroupSize {
		if !hasSpread(in.Rewards[lo : lo+in.GroupSize]) {
			zero++
		}
	}
	return whiten(sum, in.Tokens), zero
}

// whiten normalises x to zero mean and unit variance over the batch, each
// value weighted by its token count n (1 each when n is nil), as verl's
// masked_whiten: (x − μ)/sqrt(σ² + 1e-8) with Bessel's correction over
// the N = Σn tokens. Values with weight 0 come out 0; N < 2 gives all 0.
func whiten(x []float64, n []int) []float64 {
	if n != nil && len(n) != len(x) {
		panic(fmt.Sprintf("trainer: %d token counts for %d rollouts", len(n), len(x)))
	}
	w := func(i int) float64 {
		if n == nil {
			return 1
		}
		return float64(n[i])
	}
	total, s := 0.0, 0.0
	for i, v := range x {
		total += w(i)
		s += w(i) * v
	}
	out := make([]float64, len(x))
	if total < 2 {
		return out
	}
	mu := s / total
	ss := 0.0
	for i, v := range x {
		ss += w(i) * (v - mu) * (v - mu)
	}
	scale := 1 / math.Sqrt(ss/(total-1)+whitenEps)
	for i, v := range x {
		if w(i) > 0 {
			out[i] = (v - mu) * scale
		}
	}
	return out
}

func meanOf(r []float64) float64 {
	m := 0.0
	for _, x := range r {
		m += x
	}
	return m / float64(len(r))
}

// checkGroups panics unless n values split into groups of size ≥ 1.
func checkGroups(fn string, n, groupSize int) {
	if groupSize < 1 || n%groupSize != 0 {
		panic(fmt.Sprintf("trainer: %s: %d rewards do not split into groups of %d", fn, n, groupSize))
	}
}
