// Package evalbench evaluates a policy on benchmarks: the held-out sets
// that registered task families name (family.Bencher; envs/builtin
// registers those of the artist command). It samples K rollouts per problem
// through any Generator (the local rollout engine, or a policy behind an
// OpenAI-compatible completions endpoint), has the family judge them, and
// reports pass@1, unbiased pass@k, maj@k (for families with final
// answers), tool use, response length, truncation and, for families that
// record them, reward components. Scorer and Tally are the one grading
// and tallying of rollouts: training-time evaluation uses them too.
//
// The estimators are pure functions: PassAtK is the unbiased estimator of
// Chen et al. (2021), 1 - C(n-c, k)/C(n, k); Majority votes over extracted
// answers grouped by an equivalence.
package evalbench
