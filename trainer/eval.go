package trainer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
)

// EvalResult summarises rollouts on held-out tasks.
type EvalResult struct {
	Accuracy      float64 `json:"accuracy"`   // pass@1: mean over tasks and samples of correctness (see Run.correct)
	ToolCalls     float64 `json:"tool_calls"` // mean tool calls per rollout
	ToolFailFrac  float64 `json:"tool_fail_frac"`
	ResponseLen   float64 `json:"response_len"` // mean model tokens per rollout
	TruncatedFrac float64 `json:"truncated_frac"`
	Reward        float64 `json:"reward"`
	// Parts is each reward component's unweighted score summed over the
	// rollouts it applies to, divided by all rollouts.
	Parts map[string]float64 `json:"reward_parts,omitempty"`
	N     int                `json:"n"` // rollouts scored
}

// verdict says in words whether a rollout solved its task and why not.
func (r *Run) verdict(t *rollout.Trajectory) string {
	if r.fc != nil {
		v := r.fc.fc.Check(t)
		if v.Valid {
			return "correct: the checker passes every turn"
		}
		return fmt.Sprintf("incorrect: %s: %s", v.ErrorType, v.Message)
	}
	return fmt.Sprintf("gold %s, correct %v", t.Task.Answer, reward.Correct(t, t.Task, r.Cfg.Format))
}

// correct says whether a rollout solved its task: the final answer equals
// the gold one (arith, math), or the official checker passes the
// conversation (bfcl).
func (r *Run) correct(t *rollout.Trajectory) bool {
	if r.fc != nil {
		return r.fc.fc.Check(t).Valid
	}
	return reward.Correct(t, t.Task, r.Cfg.Format)
}

// evalChunk bounds how many tasks decode together during evaluation.
const evalChunk = 64

// Evaluate rolls out the policy on tasks (samples each, at temperature)
// with a fixed seed, so that evaluations of different checkpoints draw the
// same random numbers, and scores them.
func (r *Run) Evaluate(ctx context.Context, tasks []envs.Task, samples int, temperature float64) (EvalResult, []*rollout.Trajectory, error) {
	rc := r.Cfg.Rollout
	rc.GroupSize = samples
	rc.Temperature = temperature
	eng := r.Engine(rc)
	rng := stepRNG(r.Cfg.Seed, "eval", 0)
	var all []*rollout.Trajectory
	for lo := 0; lo < len(tasks); lo += evalChunk {
		hi := min(lo+evalChunk, len(tasks))
		trajs, err := eng.Run(ctx, tasks[lo:hi], rng)
		if err != nil {
			return EvalResult{}, nil, fmt.Errorf("trainer: eval: %w", err)
		}
		all = append(all, trajs...)
	}
	return r.score(all), all, nil
}

// score aggregates the eval statistics of trajectories.
func (r *Run) score(trajs []*rollout.Trajectory) EvalResult {
	var res EvalResult
	calls, fails := 0, 0
	for _, t := range trajs {
		if r.correct(t) {
			res.Accuracy++
		}
		total, parts := r.Reward.Score(t, t.Task)
		res.Reward += total
		for k, v := range parts {
			if res.Parts == nil {
				res.Parts = map[string]float64{}
			}
			res.Parts[k] += v
		}
		calls += len(t.Calls)
		for _, c := range t.Calls {
			if !c.Result.Status.Success() {
				fails++
			}
		}
		res.ResponseLen += float64(t.ModelTokens())
		if t.Stop == rollout.StopLength {
			res.TruncatedFrac++
		}
	}
	n := float64(len(trajs))
	if n == 0 {
		return res
	}
	res.N = len(trajs)
	res.Accuracy /= n
	res.Reward /= n
	for k := range res.Parts {
		res.Parts[k] /= n
	}
	res.ResponseLen /= n
	res.TruncatedFrac /= n
	res.ToolCalls = float64(calls) / n
	if calls > 0 {
		res.ToolFailFrac = float64(fails) / float64(calls)
	}
	return res
}

// heldout returns the evaluation tasks of the run.
func (r *Run) heldout() []envs.Task {
	if n := r.Cfg.Eval.Size; n > 0 && n < len(r.Heldout) {
		return r.Heldout[:n]
	}
	return r.Heldout
}

// evalAndRecord evaluates on the held-out split and writes a few rollouts
// to samples/<tag>.txt for people to read.
func (r *Run) evalAndRecord(ctx context.Context, tag string) (EvalResult, error) {
	e := r.Cfg.Eval
	res, trajs, err := r.Evaluate(ctx, r.heldout(), e.Samples, e.Temperature)
	if err != nil {
		return res, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: accuracy %.3f, tool calls %.2f, %d rollouts\n", tag, res.Accuracy, res.ToolCalls, res.N)
	for i := 0; i < len(trajs) && i < e.SaveSamples; i++ {
		t := trajs[i]
		fmt.Fprintf(&b, "\n## %s (%s, stop %s)\n%s\n", t.Task.ID, r.verdict(t), t.Stop, rollout.Text(t, r.Tok, true))
	}
	path := filepath.Join(r.Cfg.RunDir, "samples", tag+".txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return res, fmt.Errorf("trainer: samples: %w", err)
	}
	if err := atomicfile.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return res, fmt.Errorf("trainer: samples: %w", err)
	}
	return res, nil
}
