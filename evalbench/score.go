package evalbench

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
)

// Score grades rollouts of tasks, k per task grouped contiguously (as a
// Generator returns them), and summarises them. It panics when
// len(rolls) != k*len(tasks) (a programmer error).
func Score(bench string, tasks []envs.Task, rolls []Rollout, k int, f rollout.Format) ([]Sample, Summary) {
	if k < 1 || len(rolls) != k*len(tasks) {
		panic(fmt.Sprintf("evalbench: Score got %d rollouts for %d tasks × %d samples", len(rolls), len(tasks), k))
	}
	samples := make([]Sample, len(rolls))
	var t tally
	for j, task := range tasks {
		answers := make([]string, k)
		for g := range k {
			s := grade(bench, task, g, rolls[j*k+g], f)
			samples[j*k+g] = s
			answers[g] = s.Extracted
		}
		t.problem(samples[j*k : (j+1)*k])
		if maj, _ := Majority(answers, reward.Equal); maj != "" && reward.Equal(maj, task.Answer) {
			t.majK++
		}
	}
	return samples, t.summary(bench, len(tasks), k)
}

// tally accumulates the scores of a benchmark's samples, one problem's k
// samples at a time.
type tally struct {
	pass1, passK, majK   float64 // summed over problems
	tokens, truncated    float64 // summed over samples
	samples, calls, fail int
	rewards              map[string]float64 // summed over samples
}

// problem adds the k samples of one problem.
func (t *tally) problem(ss []Sample) {
	correct := 0
	for _, s := range ss {
		if s.Correct {
			correct++
		}
		t.calls += len(s.Calls)
		for _, c := range s.Calls {
			if !c.Result.Status.Success() {
				t.fail++
			}
		}
		t.tokens += float64(s.Tokens)
		if s.Stop == rollout.StopLength {
			t.truncated++
		}
		for name, v := range s.Rewards {
			if t.rewards == nil {
				t.rewards = map[string]float64{}
			}
			t.rewards[name] += v
		}
	}
	t.samples += len(ss)
	t.pass1 += float64(correct) / float64(len(ss))
	t.passK += PassAtK(len(ss), correct, len(ss))
}

// summary averages the tallies: pass@1, pass@k and maj@k over problems,
// the rest over samples (tool failures over calls).
func (t *tally) summary(bench string, problems, k int) Summary {
	sum := Summary{Bench: bench, Problems: problems, K: k}
	if problems > 0 {
		n, total := float64(problems), float64(t.samples)
		sum.Pass1, sum.PassK, sum.MajK = t.pass1/n, t.passK/n, t.majK/n
		sum.ResponseLen, sum.TruncatedFrac = t.tokens/total, t.truncated/total
		sum.ToolCalls = float64(t.calls) / total
		if t.rewards != nil {
			sum.Rewards = map[string]float64{}
			for name, v := range t.rewards {
				sum.Rewards[name] = v / total
			}
		}
	}
	if t.calls > 0 {
		sum.ToolFailFrac = float64(t.fail) / float64(t.calls)
	}
	return sum
}

// grade builds the record of sample g of task.
func grade(bench string, task envs.Task, g int, r Rollout, f rollout.Format) Sample {
	t := r.Traj
	s := Sample{
		Bench: bench, ID: task.ID, Index: g, Question: task.Prompt, Gold: task.Answer,
		Response: t.Response, Stop: t.Stop, Calls: t.Calls, Tokens: r.Tokens,
	}
	if s.Calls == nil {
		s.Calls = []rollout.Call{}
	}
	if a, ok := reward.Extract(t.Response, f); ok {
		s.Extracted = a
		s.Correct = reward.Equal(a, task.Answer)
	}
	return s
}

// Options configures Run.
type Options struct {
	Bench  string
	K      int // samples per problem (at least 1)
	Format rollout.Format
	// Chunk is how many problems are generated together (default 16);
	// progress is reported after each chunk.
	Chunk int
	// Progress, when set, is called after each chunk with the problems
	// done, their total and the time since Run started.
	Progress func(done, total int, elapsed time.Duration)
	// Score grades the rollouts; nil means the math grader (Score).
	Score func(tasks []envs.Task, rolls []Rollout, k int) ([]Sample, Summary)
}

// Run generates opts.K rollouts for every task through gen, a chunk of
// problems at a time, and scores them. rng is passed to every chunk in
// turn, so a seed fixes the results of a deterministic generator.
func Run(ctx context.Context, gen Generator, tasks []envs.Task, opts Options, rng *rand.Rand) ([]Sample, Summary, error) {
	if opts.K < 1 {
		return nil, Summary{}, fmt.Errorf("evalbench: k must be at least 1 (got %d)", opts.K)
	}
	chunk := opts.Chunk
	if chunk <= 0 {
		chunk = 16
	}
	start := time.Now()
	var rolls []Rollout
	for lo := 0; lo < len(tasks); lo += chunk {
		hi := min(lo+chunk, len(tasks))
		got, err := gen.Generate(ctx, tasks[lo:hi], opts.K, rng)
		if err != nil {
			return nil, Summary{}, fmt.Errorf("evalbench: %s: %w", opts.Bench, err)
		}
		if len(got) != (hi-lo)*opts.K {
			return nil, Summary{}, fmt.Errorf("evalbench: %s: generator returned %d rollouts for %d problems × %d", opts.Bench, len(got), hi-lo, opts.K)
		}
		rolls = append(rolls, got...)
		if opts.Progress != nil {
			opts.Progress(hi, len(tasks), time.Since(start))
		}
	}
	var samples []Sample
	var sum Summary
	if opts.Score != nil {
		samples, sum = opts.Score(tasks, rolls, opts.K)
	} else {
		samples, sum = Score(opts.Bench, tasks, rolls, opts.K, opts.Format)
	}
	sum.Seconds = time.Since(start).Seconds()
	return samples, sum, nil
}
