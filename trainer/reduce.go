package trainer

// How the processes of a run share its work, chosen once: one process
// (solo, Setup's) or the ranks of a data-parallel job (dist, TrainOn's).
// The warm start, the GRPO step and the evaluations call the reducer at
// the same points either way, so they read the same for one process and
// N ranks (Horovod's recipe: the optimizer is wrapped so that each step
// first sums the gradients).

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// reducer is how a run's processes split and combine a step's work.
type reducer interface {
	// lead reports whether this process writes the run folder and the
	// output: rank 0, or the only process.
	lead() bool
	// size is the job's number of ranks as state.json records it, 0 for
	// a process started without a launcher.
	size() int
	// share is this process's part [lo, hi) of n sequences of a warm-start
	// batch.
	share(n int) (lo, hi int)
	// own returns the indexes of the trajectories of trajs that this
	// process back-propagates: those it rolled out.
	own(trajs []*rollout.Trajectory) []int
	// optimizer wraps opt so that each Step first sums the gradients of
	// m's trainable parameters over the processes.
	optimizer(opt *AdamW, m *policy.Model) optimizer
	// sum adds x over the processes, in place.
	sum(x []float64) error
	// logProbs is model.LogProbs of seqs (trajs[j] the trajectory of
	// seqs[j]), each process computing those of its own trajectories.
	logProbs(model *policy.Model, trajs []*rollout.Trajectory, seqs [][]int) ([][]float32, error)
	// rollout rolls out and scores the tasks of one draw of r, sampling
	// from the streams of (seed, phase, step) (rollout.Streams), and
	// appends the whole draw to b, in the one-process order, adding the
	// time spent to m's timing/rollout_s and timing/reward_s.
	rollout(ctx context.Context, r *Run, b *stepBatch, tasks []envs.Task, phase string, step int, m Metrics) error
	// evaluate rolls out samples per task of tasks with eng and scores
	// the whole.
	evaluate(ctx context.Context, r *Run, eng *rollout.Engine, tasks []envs.Task, samples int) (EvalResult, []*rollout.Trajectory, error)
	// resume loads the checkpoint every process resumes from into r (nil:
	// a fresh run).
	resume(r *Run) (*trainerState, error)
	// checkWeights requires every process to hold m's weights, bit for
	// bit; when says where the run is.
	checkWeights(m *policy.Model, out io.Writer, when string) error
}

// optimizer is what the warm start and GRPO update the weights with:
// AdamW, wrapped by the reducer.
type optimizer interface {
	// Step applies one update at learning rate lr (AdamW.Step).
	Step(lr float64) (gradNorm float64, err error)
	// State returns a copy of the optimizer state (AdamW.State).
	State() (AdamWState, error)
	// SetState restores a state State returned (AdamW.SetState).
	SetState(AdamWState) error
}

// solo is the reducer of one process: it holds all the work.
type solo struct{}

func (solo) lead() bool                                      { return true }
func (solo) size() int                                       { return 0 }
func (solo) share(n int) (int, int)                          { return 0, n }
func (solo) optimizer(opt *AdamW, _ *policy.Model) optimizer { return opt }
func (solo) sum([]float64) error                             { return nil }

func (solo) own(trajs []*rollout.Trajectory) []int {
	idx := make([]int, len(trajs))
	for j := range idx {
		idx[j] = j
	}
	return idx
}

func (solo) logProbs(model *policy.Model, _ []*rollout.Trajectory, seqs [][]int) ([][]float32, error) {
	return model.LogProbs(seqs)
}

// rollout runs the whole draw in this process.
func (solo) rollout(ctx context.Context, r *Run, b *stepBatch, tasks []envs.Task, phase string, step int, m Metrics) error {
	t0 := time.Now()
	trajs, err := r.rolloutEngine(r.Cfg.Rollout).RunStreams(ctx, tasks, r.streams(phase, step, 0))
	if err != nil {
		return err
	}
	m["timing/rollout_s"] += time.Since(t0).Seconds()
	t0 = time.Now()
	r.scoreDraw(b, trajs)
	m["timing/reward_s"] += time.Since(t0).Seconds()
	return nil
}

// evaluate rolls the tasks out in chunks of evalChunk from the streams
// of (seed, "eval", 0).
func (solo) evaluate(ctx context.Context, r *Run, eng *rollout.Engine, tasks []envs.Task, samples int) (EvalResult, []*rollout.Trajectory, error) {
	var all []*rollout.Trajectory
	bar := r.evalBar(len(tasks))
	defer bar.Clear()
	for lo := 0; lo < len(tasks); lo += evalChunk {
		hi := min(lo+evalChunk, len(tasks))
		trajs, err := eng.RunStreams(ctx, tasks[lo:hi], r.streams("eval", 0, lo))
		if err != nil {
			return EvalResult{}, nil, fmt.Errorf("trainer: eval: %w", err)
		}
		all = append(all, trajs...)
		bar.Set(hi)
	}
	bar.Clear()
	return r.score(all, samples), all, nil
}

// resume resumes any checkpoint, a launched job's too: its groups sampled
// from the streams this process samples them from (rollout.Streams).
func (solo) resume(r *Run) (*trainerState, error) {
	st, err := r.resume()
	if err == nil && st != nil && st.Ranks > 0 {
		fmt.Fprintf(r.out, "resuming a run of %d ranks in one process: the batches and their sampling streams are the same, only the order of the gradient sums changes, so the weights follow the %d-rank run to rounding, not bit for bit\n", st.Ranks, st.Ranks)
	}
	return st, err
}

func (solo) checkWeights(*policy.Model, io.Writer, string) error { return nil }
