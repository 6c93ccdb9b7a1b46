package trainer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/internal/runlog"
	"github.com/artist-rl/artist/rollout"
)

// EvalResult summarises rollouts on held-out tasks.
type EvalResult struct {
	Accuracy      float64 `json:"accuracy"`   // pass@1: mean over tasks and samples of correctness (family.Set.Judge)
	ToolCalls     float64 `json:"tool_calls"` // mean tool calls per rollout
	ToolFailFrac  float64 `json:"tool_fail_frac"`
	ResponseLen   float64 `json:"response_len"` // mean model tokens per rollout
	TruncatedFrac float64 `json:"truncated_frac"`
	Reward        float64 `json:"reward"`
	// Parts is each reward component's unweighted score summed over the
	// rollouts it applies to, divided by all rollouts.
	Parts map[string]float64 `json:"reward_parts,omitempty"`
	N     int                `json:"n"` // rollouts scored
	// Groups breaks the result down by task group, for families that name
	// groups (taskGrouper); nil otherwise.
	Groups map[string]EvalResult `json:"groups,omitempty"`
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
	return r.red.evaluate(ctx, r, r.Engine(rc), tasks, samples)
}

// score grades trajectories, k per task grouped contiguously, with the
// family's judge and the run's reward (evalbench.Scorer: the grading of
// artist eval too) and averages them over the rollouts.
func (r *Run) score(trajs []*rollout.Trajectory, k int) EvalResult {
	if len(trajs) == 0 {
		return EvalResult{}
	}
	res := resultOf(r.tally(trajs, k))
	res.Groups = r.groupResults(trajs, k)
	return res
}

// resultOf averages a tally over its rollouts (tool failures over calls).
func resultOf(t evalbench.Tally) EvalResult {
	n := float64(t.Samples)
	res := EvalResult{N: t.Samples}
	res.Accuracy = float64(t.Correct) / n
	res.Reward = t.Reward / n
	for k, v := range t.Rewards {
		if res.Parts == nil {
			res.Parts = map[string]float64{}
		}
		res.Parts[k] = v / n
	}
	res.ResponseLen = t.Tokens / n
	res.TruncatedFrac = t.Truncated / n
	res.ToolCalls = float64(t.Calls) / n
	if t.Calls > 0 {
		res.ToolFailFrac = float64(t.Failed) / float64(t.Calls)
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
//
// Beside samples/<tag>.txt (the first eval.save_samples rollouts as text,
// for less), it writes samples/<tag>.jsonl: one internal/runlog record per
// rollout, with its verdict, reward components and segments, for artist
// view. step is the GRPO step the evaluation follows (0: warm start).
func (r *Run) evalAndRecord(ctx context.Context, tag string, step int) (EvalResult, error) {
	e := r.Cfg.Eval
	r.art.reembed() // embed selection follows the policy's weights
	res, trajs, err := r.Evaluate(ctx, r.heldout(), e.Samples, e.Temperature)
	if err != nil || !r.lead() {
		return res, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: accuracy %.3f, tool calls %.2f, %d rollouts\n", tag, res.Accuracy, res.ToolCalls, res.N)
	for i := 0; i < len(trajs) && i < e.SaveSamples; i++ {
		t := trajs[i]
		fmt.Fprintf(&b, "\n## %s (%s, stop %s)\n%s\n", t.Task.ID, r.Tasks.Judge(t).Reason, t.Stop, rollout.Text(t, r.Tok, true))
	}
	path := filepath.Join(r.Cfg.RunDir, "samples", tag+".txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return res, fmt.Errorf("trainer: samples: %w", err)
	}
	if err := atomicfile.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return res, fmt.Errorf("trainer: samples: %w", err)
	}
	recs := make([]runlog.Sample, 0, len(trajs))
	for _, t := range trajs {
		v := r.Tasks.Judge(t)
		total, parts := r.Reward.Score(t, t.Task)
		recs = append(recs, runlog.NewSample(t, r.Tok, r.Cfg.Format, runlog.Meta{Eval: tag, Step: step,
			Family: r.Cfg.Task.Name, Correct: v.Correct, Verdict: v.Reason, Reward: total, Rewards: parts}))
	}
	if err := runlog.WriteSamples(filepath.Join(r.Cfg.RunDir, "samples", tag+".jsonl"), recs); err != nil {
		return res, fmt.Errorf("trainer: samples: %w", err)
	}
	return res, nil
}
