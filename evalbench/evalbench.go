package evalbench

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/rollout"
)

// Names lists the known benchmarks in reporting order: those of each
// registered task family (family.Bencher), in registration order.
func Names() []string { return family.Benchmarks() }

// ParseNames splits a comma-separated list of benchmark names, keeping
// their order and dropping repeats. An unknown name is an error that lists
// the known ones.
func ParseNames(list string) ([]string, error) {
	var out []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(out, n) {
			continue
		}
		if !slices.Contains(Names(), n) {
			return nil, fmt.Errorf("evalbench: unknown benchmark %q: use %s", n, strings.Join(Names(), ", "))
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("evalbench: no benchmark named: use %s", strings.Join(Names(), ", "))
	}
	return out, nil
}

// PassAtK is the unbiased estimator of pass@k from n samples of which c
// are correct (Chen et al. 2021): 1 - C(n-c, k)/C(n, k), computed as
// 1 - Π_{i=n-c+1..n} (1 - k/i) for stability. It panics unless
// 0 ≤ c ≤ n and 1 ≤ k ≤ n (programmer errors).
func PassAtK(n, c, k int) float64 {
	if c < 0 || c > n || k < 1 || k > n {
		panic(fmt.Sprintf("evalbench: PassAtK(%d, %d, %d): need 0 ≤ c ≤ n and 1 ≤ k ≤ n", n, c, k))
	}
	if n-c < k {
		return 1
	}
	miss := 1.0
	for i := n - c + 1; i <= n; i++ {
		miss *= 1 - float64(k)/float64(i)
	}
	return 1 - miss
}

// Majority groups answers by equal (an equivalence, such as mathgrade.Equal)
// and returns a member of the largest group and its size. Empty answers
// (nothing extracted) do not vote. Ties go to the group whose first member
// comes first; each group is represented by its first member. With no
// votes it returns "", 0.
func Majority(answers []string, equal func(a, b string) bool) (string, int) {
	var reps []string
	var votes []int
	for _, a := range answers {
		if a == "" {
			continue
		}
		i := slices.IndexFunc(reps, func(r string) bool { return equal(r, a) })
		if i < 0 {
			reps, votes = append(reps, a), append(votes, 0)
			i = len(reps) - 1
		}
		votes[i]++
	}
	best := -1
	for i, v := range votes {
		if best < 0 || v > votes[best] {
			best = i
		}
	}
	if best < 0 {
		return "", 0
	}
	return reps[best], votes[best]
}

// Rollout is one generated trajectory and the number of tokens the policy
// wrote in it (Trajectory.ModelTokens for a local policy; the completion
// tokens a remote server reported, whose trajectories hold no token ids).
type Rollout struct {
	Traj   *rollout.Trajectory
	Tokens int
}

// Generator samples k rollouts for each task and returns them grouped
// contiguously: rollout j*k+g belongs to tasks[j]. All randomness comes
// from rng, which may be nil when sampling is greedy.
type Generator interface {
	Generate(ctx context.Context, tasks []envs.Task, k int, rng *rand.Rand) ([]Rollout, error)
}

// Engine generates with the local token-level rollout engine. Generate
// fails on a problem whose prompt plus the most tokens a response may
// hold (the response budget and every tool result with its tags) exceeds
// the policy's context, instead of overflowing the model's session.
type Engine struct {
	*rollout.Engine
}

// Generate implements Generator; it runs a copy of the engine with
// GroupSize k.
func (e Engine) Generate(ctx context.Context, tasks []envs.Task, k int, rng *rand.Rand) ([]Rollout, error) {
	eng := *e.Engine
	eng.Config.GroupSize = k
	if err := e.fits(ctx, tasks); err != nil {
		return nil, err
	}
	trajs, err := eng.Run(ctx, tasks, rng)
	if err != nil {
		return nil, err
	}
	out := make([]Rollout, len(trajs))
	for i, t := range trajs {
		out[i] = Rollout{Traj: t, Tokens: t.ModelTokens()}
	}
	return out, nil
}

// Check reports the first task that does not fit the model's context,
// so that a caller can refuse a benchmark before running any; Generate
// checks the same.
func (e Engine) Check(ctx context.Context, tasks []envs.Task) error { return e.fits(ctx, tasks) }

// fits checks every task against the policy's context. A prompt that
// alone overflows it is named as such: no response budget would make it
// fit.
func (e Engine) fits(ctx context.Context, tasks []envs.Task) error {
	var over *rollout.ContextError
	if err := e.CheckContext(ctx, tasks); !errors.As(err, &over) {
		return err
	}
	if over.Prompt >= over.Context {
		return fmt.Errorf("evalbench: problem %s: its prompt alone takes %d tokens, over the model's context of %d: the prompt does not fit this model; use a model with a longer context", over.Task, over.Prompt, over.Context)
	}
	return fmt.Errorf("evalbench: problem %s: its prompt, user turns and response budget take up to %d tokens, over the model's context of %d: lower rollout.max_response_tokens or use a model with a longer context", over.Task, over.Need, over.Context)
}

// Remote generates through a policy behind an OpenAI-compatible
// completions endpoint.
type Remote struct{ *rollout.Remote }

// Generate implements Generator.
func (r Remote) Generate(ctx context.Context, tasks []envs.Task, k int, rng *rand.Rand) ([]Rollout, error) {
	trajs, toks, err := r.Run(ctx, tasks, k, rng)
	if err != nil {
		return nil, err
	}
	out := make([]Rollout, len(trajs))
	for i, t := range trajs {
		out[i] = Rollout{Traj: t, Tokens: toks[i]}
	}
	return out, nil
}

// Sample is the graded record of one rollout, one line of samples.jsonl.
type Sample struct {
	Bench     string `json:"bench"`
	ID        string `json:"id"`
	Index     int    `json:"sample"` // which of the k samples of the problem
	Question  string `json:"question"`
	Response  string `json:"response"` // tool results included, as the policy read them
	Extracted string `json:"extracted"`
	Gold      string `json:"gold"`
	Correct   bool   `json:"correct"`
	// Verdict is the family's own record of the judgement
	// (family.Verdict.Detail, for example an official checker's
	// verdict); absent when there is none.
	Verdict any `json:"verdict,omitempty"`
	// Rewards are the unweighted reward components, for benchmarks that
	// record them (family.Bencher.BenchmarkRewards).
	Rewards map[string]float64 `json:"rewards,omitempty"`
	// Reward is the weighted total of the components (training-time
	// evaluation); not written.
	Reward float64            `json:"-"`
	Stop   rollout.StopReason `json:"stop"`
	Calls  []rollout.Call     `json:"calls"`
	// Replies are the exchanges with a simulated user (rollout.Reply),
	// for conversations that have one.
	Replies []rollout.Reply `json:"replies,omitempty"`
	Tokens  int             `json:"response_tokens"`
}

// Summary holds the scores of one benchmark.
type Summary struct {
	Bench    string  `json:"bench"`
	Problems int     `json:"problems"`
	K        int     `json:"k"` // samples per problem
	Pass1    float64 `json:"pass@1"`
	PassK    float64 `json:"pass@k"` // unbiased estimator at k = K
	MajK     float64 `json:"maj@k"`  // majority vote over the K extracted answers (families with answers)
	// PassHatK is pass^k at k = K: the chance that K samples of a
	// problem are all correct, tau-bench's reliability measure.
	PassHatK      float64 `json:"pass^k"`
	ToolCalls     float64 `json:"tool_calls"`
	ToolFailFrac  float64 `json:"tool_fail_frac"`
	ResponseLen   float64 `json:"response_len"` // mean policy tokens per rollout
	TruncatedFrac float64 `json:"truncated_frac"`
	Seconds       float64 `json:"seconds"`
	// Rewards are the mean reward components over the rollouts, for
	// benchmarks that record them.
	Rewards map[string]float64 `json:"rewards,omitempty"`

	noVote bool // maj@k does not apply (no final answers)
}
