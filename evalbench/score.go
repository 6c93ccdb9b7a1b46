package evalbench

import (
	"fmt"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Judge decides whether a rollout solved its task; every family.Set is
// one, and reward.Answers judges tasks with gold final answers. A Judge
// that is also a family.Voter has its extracted answers put to a
// majority vote (maj@k).
type Judge interface {
	Judge(t *rollout.Trajectory) family.Verdict
}

// Scorer grades the rollouts of one benchmark or held-out split: the one
// grading of artist eval and of training-time evaluation.
type Scorer struct {
	// Bench names the benchmark in samples and the summary.
	Bench string
	// Judge decides correctness.
	Judge Judge
	// Parts, when set, scores each rollout: its unweighted components are
	// recorded with the sample, its weighted total in Sample.Reward.
	Parts reward.Composite
}

// Score grades rollouts of tasks, k per task grouped contiguously (as a
// Generator returns them), and summarises them. It panics when
// len(rolls) != k*len(tasks) (a programmer error).
func Score(bench string, tasks []envs.Task, rolls []Rollout, k int, f format.Format) ([]Sample, Summary) {
	return Scorer{Bench: bench, Judge: reward.Answers{Format: f}}.Score(tasks, rolls, k)
}

// Score grades rollouts of tasks, k per task grouped contiguously, and
// summarises them. It panics when len(rolls) != k*len(tasks).
func (s Scorer) Score(tasks []envs.Task, rolls []Rollout, k int) ([]Sample, Summary) {
	samples, t := s.Tally(tasks, rolls, k)
	return samples, t.Summary(s.Bench, k)
}

// Tally grades the rollouts as Score does and returns the sums behind the
// summary.
func (s Scorer) Tally(tasks []envs.Task, rolls []Rollout, k int) ([]Sample, Tally) {
	if k < 1 || len(rolls) != k*len(tasks) {
		panic(fmt.Sprintf("evalbench: Score got %d rollouts for %d tasks × %d samples", len(rolls), len(tasks), k))
	}
	voter, votes := s.Judge.(family.Voter)
	samples := make([]Sample, len(rolls))
	t := Tally{NoVote: !votes}
	for j, task := range tasks {
		answers := make([]string, k)
		for g := range k {
			samples[j*k+g] = s.grade(task, g, rolls[j*k+g])
			answers[g] = samples[j*k+g].Extracted
		}
		t.Add(samples[j*k : (j+1)*k])
		if votes {
			if maj, _ := Majority(answers, voter.Same); maj != "" && voter.Same(maj, task.Answer) {
				t.MajK++
			}
		}
	}
	return samples, t
}

// grade builds the record of sample g of task, judged against task.
func (s Scorer) grade(task envs.Task, g int, r Rollout) Sample {
	t := r.Traj
	if t.Task.ID != task.ID || t.Task.Answer != task.Answer {
		judged := *t // a generator's trajectory judged against task
		judged.Task = task
		t = &judged
	}
	v := s.Judge.Judge(t)
	out := Sample{
		Bench: s.Bench, ID: task.ID, Index: g, Question: task.Prompt, Gold: task.Answer,
		Response: t.Response, Extracted: v.Answer, Correct: v.Correct, Verdict: v.Detail,
		Stop: t.Stop, Calls: t.Calls, Replies: t.Replies, Tokens: r.Tokens,
	}
	if out.Calls == nil {
		out.Calls = []rollout.Call{}
	}
	if s.Parts != nil {
		out.Reward, out.Rewards = s.Parts.Score(t, task)
	}
	return out
}

// Tally holds the sums of graded samples, added one problem's samples at
// a time; Summary averages them.
type Tally struct {
	Problems, Samples  int
	Correct            int                // correct samples
	Calls, Failed      int                // tool calls, and those that did not succeed
	Pass1, PassK, MajK float64            // summed over problems
	PassHatK           float64            // pass^k (every one of k samples correct), summed over problems
	Tokens, Truncated  float64            // policy tokens and truncated samples, summed over samples
	Reward             float64            // Sample.Reward summed over samples
	Rewards            map[string]float64 // each component summed over the samples it applies to
	NoVote             bool               // the judge has no answers to vote on: maj@k does not apply
}

// Add adds the k samples of one problem.
func (t *Tally) Add(ss []Sample) {
	correct := 0
	for _, s := range ss {
		if s.Correct {
			correct++
		}
		t.Calls += len(s.Calls)
		for _, c := range s.Calls {
			if !c.Result.Status.Success() {
				t.Failed++
			}
		}
		t.Tokens += float64(s.Tokens)
		if s.Stop == rollout.StopLength {
			t.Truncated++
		}
		t.Reward += s.Reward
		for name, v := range s.Rewards {
			if t.Rewards == nil {
				t.Rewards = map[string]float64{}
			}
			t.Rewards[name] += v
		}
	}
	t.Problems++
	t.Samples += len(ss)
	t.Correct += correct
	if len(ss) > 0 {
		t.Pass1 += float64(correct) / float64(len(ss))
		t.PassK += PassAtK(len(ss), correct, len(ss))
		t.PassHatK += passHat(ss, len(ss))
	}
}

// Summary averages the tallies: pass@1, pass@k and maj@k over problems,
// the rest over samples (tool failures over calls).
func (t Tally) Summary(bench string, k int) Summary {
	sum := Summary{Bench: bench, Problems: t.Problems, K: k, noVote: t.NoVote}
	if t.Problems > 0 {
		n, total := float64(t.Problems), float64(t.Samples)
		sum.Pass1, sum.PassK, sum.MajK, sum.PassHatK = t.Pass1/n, t.PassK/n, t.MajK/n, t.PassHatK/n
		sum.ResponseLen, sum.TruncatedFrac = t.Tokens/total, t.Truncated/total
		sum.ToolCalls = float64(t.Calls) / total
		if t.Rewards != nil {
			sum.Rewards = map[string]float64{}
			for name, v := range t.Rewards {
				sum.Rewards[name] = v / total
			}
		}
	}
	if t.Calls > 0 {
		sum.ToolFailFrac = float64(t.Failed) / float64(t.Calls)
	}
	return sum
}

// passHat is pass^k of one problem's samples, tau-bench's reliability
// measure: C(c, k) / C(n, k) with c correct of n, the chance that k
// samples drawn without replacement are all correct; 0 when c < k or
// n < k.
func passHat(ss []Sample, k int) float64 {
	n, c := len(ss), 0
	for _, s := range ss {
		if s.Correct {
			c++
		}
	}
	if k < 1 || c < k || n < k {
		return 0
	}
	p := 1.0
	for j := 0; j < k; j++ {
		p *= float64(c-j) / float64(n-j)
	}
	return p
}
