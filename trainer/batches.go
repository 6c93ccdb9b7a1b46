package trainer

import (
	"context"
	"math/rand"

	"github.com/artist-rl/artist/policy"
)

// batchSource hands each GRPO step its sampled, rolled-out and scored
// groups. A run chooses it once, when GRPO starts (startBatches): drawn
// in process from the weights about to be updated (fresh), drawn by
// rollout servers that are given those weights first (fromServers), or
// rolled out ahead by the producer of bounded staleness (staleRollouts).
type batchSource interface {
	// batch returns step's scored rollouts and the stream the update's
	// minibatch order reads on, adding the draw's metrics to m. Steps
	// are asked for in order.
	batch(ctx context.Context, step int, m Metrics) (*stepBatch, *rand.Rand, error)
	// updated tells the source that m holds the weights after step's
	// update.
	updated(step int, m *policy.Model) error
	// close stops what the source runs and waits for it.
	close()
}

// startBatches chooses the batch source of GRPO steps first+1 on.
func (r *Run) startBatches(ctx context.Context, first int) (batchSource, error) {
	p, err := r.startStale(ctx, first)
	switch {
	case err != nil:
		return nil, err
	case p != nil:
		return p, nil
	case r.servers != nil:
		return fromServers{fresh{r}}, nil
	}
	return fresh{r}, nil
}

// fresh draws each step from the run's current weights, from the stream
// (seed, "grpo", step).
type fresh struct{ r *Run }

func (f fresh) batch(ctx context.Context, step int, m Metrics) (*stepBatch, *rand.Rand, error) {
	rng := stepRNG(f.r.Cfg.Seed, "grpo", step)
	b, err := f.r.drawStep(ctx, step, step, m)
	return b, rng, err
}

func (fresh) updated(int, *policy.Model) error { return nil }
func (fresh) close()                           {}

// fromServers is fresh on rollout servers (drawStep gives them the
// weights first). How far the servers' log-probs of the trajectories that
// train are from the trainer's (rollout/logprob_diff/mean) is recorded by
// the update, from the log-probs it computes anyway (correctRollouts).
type fromServers struct{ fresh }
