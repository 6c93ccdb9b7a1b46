package trainer

import (
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/rollout"
)

// taskGrouper is a family.Set that sorts its tasks into named groups (a
// step count, a difficulty). Evaluations of such a family break their
// results down by group (EvalResult.Groups), recorded as
// eval/<task>/<metric>/<group>. A task in group "" is left out of every
// group.
type taskGrouper interface {
	TaskGroup(t envs.Task) string
}

// tally grades trajectories, k per task grouped contiguously, with the
// family's judge and the run's reward (evalbench.Scorer: the grading of
// artist eval too).
func (r *Run) tally(trajs []*rollout.Trajectory, k int) evalbench.Tally {
	tasks := make([]envs.Task, len(trajs)/k)
	rolls := make([]evalbench.Rollout, len(trajs))
	for i, t := range trajs {
		tasks[i/k] = t.Task
		rolls[i] = evalbench.Rollout{Traj: t, Tokens: t.ModelTokens()}
	}
	sc := evalbench.Scorer{Bench: r.Cfg.Task.Name, Judge: r.Tasks, Parts: r.Reward}
	_, t := sc.Tally(tasks, rolls, k)
	return t
}

// groupResults scores each group of trajectories (k per task, grouped
// contiguously) on its own, or returns nil when the family names no
// groups.
func (r *Run) groupResults(trajs []*rollout.Trajectory, k int) map[string]EvalResult {
	g, ok := r.Tasks.(taskGrouper)
	if !ok {
		return nil
	}
	byGroup := map[string][]*rollout.Trajectory{}
	for lo := 0; lo+k <= len(trajs); lo += k {
		if name := g.TaskGroup(trajs[lo].Task); name != "" {
			byGroup[name] = append(byGroup[name], trajs[lo:lo+k]...)
		}
	}
	if len(byGroup) == 0 {
		return nil
	}
	out := make(map[string]EvalResult, len(byGroup))
	for name, ts := range byGroup {
		out[name] = resultOf(r.tally(ts, k))
	}
	return out
}

// putGroups records each group's pass@1, tool calls, tool-failure rate and
// response length under pre (eval/<task>/): pre+"tool_calls/steps=3".
func putGroups(m Metrics, pre string, groups map[string]EvalResult) {
	for name, ev := range groups {
		m[pre+"pass@1/"+name] = ev.Accuracy
		m[pre+"tool_calls/"+name] = ev.ToolCalls
		m[pre+"tool_fail_frac/"+name] = ev.ToolFailFrac
		m[pre+"response_len/"+name] = ev.ResponseLen
	}
}
