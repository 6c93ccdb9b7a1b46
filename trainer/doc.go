// Package trainer trains a policy with GRPO (ARTIST, arXiv 2505.01441).
//
// The GRPO maths are pure functions on slices: group-relative advantages
// (GroupAdvantages, and the Advantage registry), and the clipped-surrogate
// loss with its k3 KL penalty and gradient (PolicyLoss). AdamW updates the
// model's parameters with global gradient-norm clipping, and CosineLR and
// ConstantLR give learning-rate schedules. The training loop runs one timed
// phase each for rollout, reward, advantage, update, eval and checkpoint.
package trainer
