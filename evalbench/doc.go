// Package evalbench evaluates a policy on math benchmarks (MATH-500, AIME
// 2024 and 2025, AMC 2023, OlympiadBench): it samples K rollouts per
// problem through any Generator (the local rollout engine, or a policy
// behind an OpenAI-compatible completions endpoint), grades them with
// reward.Extract and reward.Equal, and reports pass@1, unbiased pass@k,
// maj@k, tool use, response length and truncation.
//
// The estimators are pure functions: PassAtK is the unbiased estimator of
// Chen et al. (2021), 1 - C(n-c, k)/C(n, k); Majority votes over extracted
// answers grouped by an equivalence.
package evalbench
