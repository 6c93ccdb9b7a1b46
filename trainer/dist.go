package trainer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/artist-rl/artist/collective"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
)

// Data-parallel training (Horovod's recipe on the Collective of package
// collective). Every rank builds the same run from the same config and
// draws the same task stream; of each step's groups it rolls out, runs
// the tools of and scores only its share (shard), then all ranks exchange
// the scored trajectories, so every rank holds the whole batch, in the
// one-process order, and computes the same advantages, loss coefficients,
// minibatch order and metrics. Each rank back-propagates its own
// trajectories; the gradients are summed by all-reduce before each
// optimizer step, which every rank then takes identically. The warm start
// shards each batch's sequences the same way, and evaluations shard the
// held-out tasks. Rank 0 alone writes the run folder.
//
// Every trajectory samples from its own stream (rollout.Streams: seed,
// phase, step, group, sample), so what a group samples does not depend on
// which rank holds it: runs at any number of ranks, and without a
// launcher, draw the same batches and differ only in the order of the
// gradient sums.

// dist is the reducer of a rank of a data-parallel job.
type dist struct {
	c    collective.Collective
	mine map[*rollout.Trajectory]bool // this rank's trajectories of the step
	buf  []float32                    // gradient staging for the all-reduce
}

var _ reducer = (*dist)(nil)

func newDist(c collective.Collective) *dist {
	return &dist{c: c, mine: map[*rollout.Trajectory]bool{}}
}

// gradChunk bounds the floats all-reduced per call (64 MiB).
const gradChunk = 1 << 24

// TrainOn is Train as one rank of the data-parallel job of c. With a
// collective.Single it is Train. Every rank must be started with the same
// config: the ranks compare their resolved configs first and all refuse
// to start, naming the first key that differs. Ranks other than 0 print
// nothing to out.
func TrainOn(ctx context.Context, cfg Config, c collective.Collective, out io.Writer) (*Summary, error) {
	if _, single := c.(collective.Single); single || c == nil {
		return Train(ctx, cfg, out)
	}
	if c.Rank() != 0 || out == nil {
		out = io.Discard
	}
	if err := checkSameConfig(c, cfg); err != nil {
		return nil, err
	}
	if err := distSupported(cfg); err != nil {
		return nil, err
	}
	r, err := Setup(ctx, cfg, out)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	r.red = newDist(c)
	fmt.Fprintf(out, "data parallel: %d ranks\n", c.Size())
	return r.Run(ctx)
}

// distSupported refuses the features whose state lives in one process.
func distSupported(cfg Config) error {
	l := cfg.Tool.Library
	switch {
	case l.Atlass.Enabled:
		return fmt.Errorf("trainer: tool.library.atlass runs on one process only: start without mpirun or turn it off")
	case l.Grow:
		return fmt.Errorf("trainer: tool.library.grow runs on one process only (each rank would grow its own library): start without mpirun or set grow: false")
	case cfg.GRPO.MaxStaleness > 0:
		return fmt.Errorf("trainer: grpo.max_staleness rolls out ahead in one process (the ranks would exchange rollouts and gradients at once): start without mpirun or set grpo.max_staleness: 0")
	case len(cfg.Rollout.Servers) > 0:
		return fmt.Errorf("trainer: rollout.servers samples from one trainer process (each rank would push its weights to the servers): start without mpirun or remove rollout.servers")
	}
	return nil
}

// lead reports whether this process writes the run folder.
func (r *Run) lead() bool { return r.red.lead() }

func (d *dist) lead() bool             { return d.c.Rank() == 0 }
func (d *dist) size() int              { return d.c.Size() }
func (d *dist) share(n int) (int, int) { return shard(n, d.c.Rank(), d.c.Size()) }

// own returns the indexes of this rank's trajectories of the step.
func (d *dist) own(trajs []*rollout.Trajectory) []int {
	var idx []int
	for j, t := range trajs {
		if d.mine[t] {
			idx = append(idx, j)
		}
	}
	return idx
}

func (d *dist) sum(x []float64) error {
	if err := d.c.AllReduceFloat64(x); err != nil {
		return fmt.Errorf("trainer: all-reduce: %w", err)
	}
	return nil
}

// distOptimizer is AdamW whose Step first sums the gradients over the
// ranks, so that every rank takes the same step (Horovod's
// DistributedOptimizer).
type distOptimizer struct {
	*AdamW
	d *dist
	m *policy.Model
}

func (d *dist) optimizer(opt *AdamW, m *policy.Model) optimizer {
	return distOptimizer{AdamW: opt, d: d, m: m}
}

// Step sums the gradients over the ranks, then takes AdamW's step.
func (o distOptimizer) Step(lr float64) (float64, error) {
	if err := o.d.allReduceGrads(o.m); err != nil {
		return 0, err
	}
	return o.AdamW.Step(lr)
}

// shard is the part [lo, hi) of n items that rank takes of size ranks:
// contiguous, the first n%size ranks one longer.
func shard(n, rank, size int) (lo, hi int) {
	q, rem := n/size, n%size
	lo = rank*q + min(rank, rem)
	hi = lo + q
	if rank < rem {
		hi++
	}
	return lo, hi
}

// scored is one trajectory as the ranks exchange it: the task's index in
// the call's task list (the task itself every rank has), the trajectory
// without its task, and its reward.
type scored struct {
	Task  int
	Traj  *rollout.Trajectory
	Total float64
	Parts map[string]float64
}

// exchange sends this rank's scored trajectories to every rank and returns
// all of them in rank order, each with its task restored from tasks and
// its Group set to the task's index; mark records this rank's own in
// d.mine.
func (d *dist) exchange(local []scored, tasks []envs.Task, mark bool) ([]scored, error) {
	var buf bytes.Buffer
	for i := range local {
		t := *local[i].Traj
		t.Task = envs.Task{}
		t.ToolState = nil // a session's end state stays with the rank that scored it
		local[i].Traj = &t
	}
	if err := gob.NewEncoder(&buf).Encode(local); err != nil {
		return nil, fmt.Errorf("trainer: encode trajectories: %w", err)
	}
	parts, err := collective.AllGather(d.c, buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("trainer: exchange trajectories: %w", err)
	}
	var all []scored
	for rank, p := range parts {
		var got []scored
		if err := gob.NewDecoder(bytes.NewReader(p)).Decode(&got); err != nil {
			return nil, fmt.Errorf("trainer: trajectories of rank %d: %w", rank, err)
		}
		for _, s := range got {
			if s.Task < 0 || s.Task >= len(tasks) {
				return nil, fmt.Errorf("trainer: rank %d sent a trajectory of task %d of %d", rank, s.Task, len(tasks))
			}
			s.Traj.Task, s.Traj.Group = tasks[s.Task], s.Task
			if mark && rank == d.c.Rank() {
				d.mine[s.Traj] = true
			}
			all = append(all, s)
		}
	}
	return all, nil
}

// rolloutShare rolls out this rank's share of tasks, each group from its
// own stream of (phase, step), and scores it with score (nil: no reward).
func (d *dist) rolloutShare(ctx context.Context, r *Run, eng *rollout.Engine, tasks []envs.Task, phase string, step int, score func(*rollout.Trajectory) (float64, map[string]float64)) ([]scored, error) {
	lo, hi := d.share(len(tasks))
	var out []scored
	if lo == hi {
		return out, nil
	}
	trajs, err := eng.RunStreams(ctx, tasks[lo:hi], r.streams(phase, step, lo))
	if err != nil {
		return nil, err
	}
	for _, t := range trajs {
		s := scored{Task: lo + t.Group, Traj: t}
		if score != nil {
			s.Total, s.Parts = score(t)
		}
		out = append(out, s)
	}
	return out, nil
}

// rollout rolls out and scores this rank's share of the draw's groups,
// each group from its own stream, then every rank appends the whole draw
// to b in the one-process order.
func (d *dist) rollout(ctx context.Context, r *Run, b *stepBatch, tasks []envs.Task, phase string, step int, m Metrics) error {
	if phase == "grpo" {
		clear(d.mine) // a new step
	}
	t0 := time.Now()
	var scoreS float64
	score := func(t *rollout.Trajectory) (float64, map[string]float64) {
		ts := time.Now()
		defer func() { scoreS += time.Since(ts).Seconds() }()
		return r.scoreOne(t)
	}
	local, err := d.rolloutShare(ctx, r, r.Engine(r.Cfg.Rollout), tasks, phase, step, score)
	if err != nil {
		return err
	}
	all, err := d.exchange(local, tasks, true)
	if err != nil {
		return err
	}
	m["timing/rollout_s"] += time.Since(t0).Seconds() - scoreS
	m["timing/reward_s"] += scoreS
	for _, s := range all {
		b.add(s.Traj, s.Total, s.Parts)
	}
	return nil
}

// evaluate has each rank roll out a contiguous share of the tasks, each
// task from its own stream, and every rank score the gathered whole.
func (d *dist) evaluate(ctx context.Context, r *Run, eng *rollout.Engine, tasks []envs.Task, samples int) (EvalResult, []*rollout.Trajectory, error) {
	lo, hi := d.share(len(tasks))
	var local []scored
	for clo := lo; clo < hi; clo += evalChunk {
		chi := min(clo+evalChunk, hi)
		trajs, err := eng.RunStreams(ctx, tasks[clo:chi], r.streams("eval", 0, clo))
		if err != nil {
			return EvalResult{}, nil, fmt.Errorf("trainer: eval: %w", err)
		}
		for _, t := range trajs {
			local = append(local, scored{Task: clo + t.Group, Traj: t})
		}
	}
	all, err := d.exchange(local, tasks, false)
	if err != nil {
		return EvalResult{}, nil, err
	}
	trajs := make([]*rollout.Trajectory, len(all))
	for i, s := range all {
		trajs[i] = s.Traj
	}
	return r.score(trajs, samples), trajs, nil
}

// allReduceGrads sums the gradient of every trainable parameter of m
// over the ranks, in chunks of at most gradChunk floats packed in
// parameter order.
func (d *dist) allReduceGrads(m *policy.Model) error {
	if err := m.EnableGrads(); err != nil { // a rank without sequences in a minibatch has none yet
		return err
	}
	if err := m.HostGrads(); err != nil { // staged through host memory on a device
		return err
	}
	if d.buf == nil {
		d.buf = make([]float32, 0, min(gradChunk, m.NumParams()))
	}
	var pending []*policy.Param
	flush := func() error {
		if len(d.buf) == 0 {
			return nil
		}
		if err := d.c.AllReduceFloat32(d.buf); err != nil {
			return fmt.Errorf("trainer: all-reduce gradients: %w", err)
		}
		off := 0
		for _, p := range pending {
			off += copy(p.Grad, d.buf[off:])
		}
		d.buf, pending = d.buf[:0], pending[:0]
		return nil
	}
	for _, p := range m.TrainParams() {
		for g := p.Grad; len(g) > 0; {
			if len(d.buf) == cap(d.buf) {
				if err := flush(); err != nil {
					return err
				}
			}
			n := min(len(g), cap(d.buf)-len(d.buf))
			d.buf = append(d.buf, g[:n]...)
			pending = append(pending, &policy.Param{Grad: p.Grad[len(p.Grad)-len(g):][:n]})
			g = g[n:]
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return m.DeviceGrads()
}

// logProbs has each rank compute the log-probs of its own trajectories
// and the ranks exchange them.
func (d *dist) logProbs(model *policy.Model, trajs []*rollout.Trajectory, seqs [][]int) ([][]float32, error) {
	idx := d.own(trajs)
	var lp [][]float32
	if len(idx) > 0 {
		var err error
		if lp, err = model.LogProbs(pick(seqs, idx)); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(struct {
		Idx []int
		LP  [][]float32
	}{idx, lp}); err != nil {
		return nil, err
	}
	parts, err := collective.AllGather(d.c, buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("trainer: exchange log-probs: %w", err)
	}
	out := make([][]float32, len(seqs))
	for rank, p := range parts {
		var got struct {
			Idx []int
			LP  [][]float32
		}
		if err := gob.NewDecoder(bytes.NewReader(p)).Decode(&got); err != nil || len(got.Idx) != len(got.LP) {
			return nil, fmt.Errorf("trainer: log-probs of rank %d: %v", rank, err)
		}
		for k, j := range got.Idx {
			out[j] = got.LP[k]
		}
	}
	return out, nil
}

// weightsHash is the SHA-256 of the model's weights, bit for bit: float32
// values, and the bfloat16 bits of weights frozen in bfloat16.
func weightsHash(m *policy.Model) [32]byte {
	h := sha256.New()
	var b [4]byte
	ps := m.Params
	if l := m.LoRA(); l != nil {
		ps = append(append([]*policy.Param(nil), ps...), l.Params()...)
	}
	for _, p := range ps {
		for _, v := range p.Data {
			u := math.Float32bits(v)
			b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
			h.Write(b[:])
		}
		for _, u := range p.BF16() { // a base frozen in bfloat16 (model.lora.base_dtype)
			b[0], b[1] = byte(u), byte(u>>8)
			h.Write(b[:2])
		}
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// checkWeights requires every rank to hold m's weights, bit for bit, and
// prints their hash on out.
func (d *dist) checkWeights(m *policy.Model, out io.Writer, when string) error {
	if err := m.HostWeights(); err != nil { // from the device, where an optimizer updated them
		return fmt.Errorf("trainer: compare weights: %w", err)
	}
	h := weightsHash(m)
	parts, err := collective.AllGather(d.c, h[:])
	if err != nil {
		return fmt.Errorf("trainer: compare weights: %w", err)
	}
	for rank, p := range parts {
		if !bytes.Equal(p, parts[0]) {
			return fmt.Errorf("trainer: %s, rank %d's weights differ from rank 0's: the ranks must start from the same init and run_dir", when, rank)
		}
	}
	fmt.Fprintf(out, "weights %s: sha256 %s, the same on all %d ranks\n", when, hex.EncodeToString(h[:8]), len(parts))
	return nil
}
