package trainer

import (
	"hash/fnv"
	"math/rand"

	"github.com/artist-rl/artist/rollout"
)

// stepRNG returns the random source of one phase step. Deriving it from
// (seed, phase, step) rather than carrying one stream makes a resumed run
// draw exactly what the uninterrupted run would have drawn.
func stepRNG(seed int64, phase string, step int) *rand.Rand {
	h := fnv.New64a()
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i] = byte(seed >> (8 * i))
		b[8+i] = byte(int64(step) >> (8 * i))
	}
	h.Write(b[:])
	h.Write([]byte(phase))
	return rand.New(rand.NewSource(int64(h.Sum64() >> 1)))
}

// taskRNG draws the training tasks of one phase step. It mixes the task
// family's seed (family.Set.TaskSeed) into the run seed, so train draws
// and a held-out split generated from its own seed come from different
// seeds.
func (r *Run) taskRNG(phase string, step int) *rand.Rand {
	seed := r.Cfg.Seed ^ r.Tasks.TaskSeed()<<32
	return stepRNG(seed, "tasks/"+phase, step)
}

// streams are the sampling streams of a rollout call of phase at step
// whose first task is the batch's group first (rollout.Streams).
func (r *Run) streams(phase string, step, first int) rollout.Streams {
	return rollout.Streams{Seed: r.Cfg.Seed, Phase: phase, Step: step, First: first}
}
