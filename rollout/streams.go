package rollout

import (
	"hash/fnv"
	"math/rand"
)

// Streams names the sampling streams of one rollout call. Trajectory
// sample of the task whose group is group (counted from First over the
// whole batch, so that a process rolling out groups lo..hi-1 sets First
// to lo) samples from its own stream, whose seed is
// Trajectory(First+j, sample) for tasks[j]. The same Streams give the same
// trajectories in process, on rollout servers and on any number of ranks.
//
// Within a trajectory, each segment the policy generates (from the prompt,
// or after a tool result or a user turn, up to its next pause) draws one
// Float64 per token from rand.NewSource(SegmentSeed(seed, k)), k counting
// the trajectory's segments from 0: what a rollout server does for request
// k of the trajectory.
type Streams struct {
	Seed  int64  // the run's seed
	Phase string // what the call is for: "grpo", "grpo/draw-1", "eval", ...
	Step  int    // the step of the phase
	First int    // the batch-wide group of tasks[0]
}

// Trajectory is the seed of trajectory sample of group group: an FNV-1a
// hash of (Seed, Step, group, sample, Phase), so streams of different
// trajectories, steps or phases are unrelated.
func (s Streams) Trajectory(group, sample int) int64 {
	h := fnv.New64a()
	var b [32]byte
	for i, v := range []int64{s.Seed, int64(s.Step), int64(group), int64(sample)} {
		for k := range 8 {
			b[8*i+k] = byte(v >> (8 * k))
		}
	}
	h.Write(b[:])
	h.Write([]byte(s.Phase))
	return int64(h.Sum64() >> 1)
}

// StreamsFrom is Streams whose Seed is drawn from rng (Int63), for
// callers that hold one stream; the zero Streams when rng is nil (enough
// for greedy decoding, which draws nothing).
func StreamsFrom(rng *rand.Rand) Streams {
	if rng == nil {
		return Streams{}
	}
	return Streams{Seed: rng.Int63()}
}

// segmentRNG is the stream of segment k of the trajectory whose seed is
// seed.
func segmentRNG(seed int64, k int) *rand.Rand {
	return rand.New(rand.NewSource(SegmentSeed(seed, k)))
}
