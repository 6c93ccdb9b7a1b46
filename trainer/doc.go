// Package trainer trains a tool-using policy: a supervised warm start on
// ART-style demonstrations, then GRPO (ARTIST, arXiv 2505.01441).
//
// A run (Train, or Setup then Run) follows the data flow of one GRPO step
// in docs/ARCHITECTURE.md. The warm start builds a library of worked
// solutions whose tool output comes from really running the tool (the
// task family's Demonstrations), fine-tunes on it with the tool output
// masked, evaluates the held-out split and checkpoints step 0.
// Each GRPO step then samples prompts, rolls out G trajectories per prompt
// (rollout.Engine), scores them (reward.Composite), computes group
// advantages and updates the weights, with one timed phase each for
// rollout, reward, advantage, update, eval and checkpoint; it writes one
// metrics.jsonl record per step and a progress line. The run ends with a
// final evaluation, summary.json and reward_curve.png.
//
// The GRPO maths are pure functions on slices: group-relative advantages
// (GroupAdvantages, and the Advantage registry), and the clipped-surrogate
// loss with its k3 KL penalty and its gradient with respect to each token's
// log-probability (PolicyLoss). The model back-propagates that gradient
// (policy.Model.Backward), so tokens with loss mask 0 get exactly no
// gradient. AdamW updates the weights with global gradient-norm clipping.
//
// Objectives are registries of name → Go function, so a program adds its
// own without forking: RegisterAdvantage (or RegisterEstimator,
// RegisterComponentEstimator) for grpo.advantage, RegisterLoss for
// grpo.loss; a second registration under a name panics. Built in:
// grpo, drgrpo, rloo, reinforce_pp, reinforce_pp_baseline and gdpo
// (advantage.go), ppo_clip, gspo and cispo (objective.go). The mismatch
// between the sampler's and the trainer's log-probs has its importance
// weights, rejection masks and metrics in mismatch.go. docs/objectives.md
// tabulates them with their papers and the peers that offer them.
//
// Task families (envs/family) supply everything task-specific: the
// training pool and held-out split, the tools beside the sandbox, the
// warm-start library, the reward components and the judge of accuracy,
// and their config section (task.<name>). The trainer holds none of it;
// the program registers the families it knows.
//
// Randomness: every phase step draws from a source derived from (seed,
// phase, step), so the same config and seed give the same run, and a run
// resumed from a checkpoint continues exactly as the uninterrupted run.
// Checkpoints are written to a temporary folder and renamed into place.
package trainer
