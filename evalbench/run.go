package evalbench

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// Options configures Run.
type Options struct {
	Bench  string
	K      int // samples per problem (at least 1)
	Format format.Format
	// Chunk is how many problems are generated together (default 16);
	// progress is reported after each chunk.
	Chunk int
	// Progress, when set, is called after each chunk with the problems
	// done, their total and the time since Run started.
	Progress func(done, total int, elapsed time.Duration)
	// Score grades the rollouts; nil means the answer grader (Score with
	// Format).
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
