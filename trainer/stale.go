package trainer

// Bounded staleness (grpo.max_staleness ≥ 1): a producer goroutine rolls
// out the next steps' groups while the trainer updates, from snapshots of
// the weights taken after each update, on a schedule that does not depend
// on thread timing. See docs/ARCHITECTURE.md, "Bounded staleness".

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand"
	"runtime"
	"sync"
	"time"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/rollout"
)

// staleRollouts is the producer of a run with max_staleness k ≥ 1. Weights
// version v are those after v updates; the run started from version first
// (0, or the step of the checkpoint it resumed). Step s trains on rollouts
// sampled from version
//
//	versionFor(s) = max(first, s−1−k)
//
// so its staleness, the updates between them and the weights it updates,
// is min(k, s−1−first). The producer rolls steps out in order, each once
// its version has been published, and hands them over through a queue;
// a step's rollouts depend only on (seed, step) and that version, never
// on when the producer ran.
type staleRollouts struct {
	k, first, last int
	lag            int // tests: sample lag versions older than scheduled, to force drops

	pub     chan versionSnap // published weights, in version order
	out     chan produced    // rolled-out steps, in step order
	stop    context.CancelFunc
	done    chan struct{}
	restore func() // undoes overlapThreads
}

// versionSnap is a copy of the weights of one version.
type versionSnap struct {
	v int
	m *policy.Model
}

// produced is one step's rollouts as the producer hands them over: the
// batch, its sampling stream after the draw (the update's minibatch
// order reads it on), the metrics of the draw and the version that
// sampled it.
type produced struct {
	step, version int
	b             *stepBatch
	rng           *rand.Rand
	m             Metrics
	err           error
}

// versionFor is the weights version that samples step s.
func (p *staleRollouts) versionFor(s int) int { return max(p.first, s-1-p.k-p.lag) }

// needed reports whether a step still to come samples from version v
// (versionFor takes every value from first to versionFor(last)).
func (p *staleRollouts) needed(v int) bool { return v <= p.versionFor(p.last) }

// startStale starts the producer for steps first+1..last from the run's
// current weights (version first); nil when max_staleness is 0. The
// error is that of copying the weights.
func (r *Run) startStale(ctx context.Context, first int) (*staleRollouts, error) {
	g := r.Cfg.GRPO
	if g.MaxStaleness == 0 || first >= g.Steps {
		return nil, nil
	}
	snap, err := r.Model.Merged()
	if err != nil {
		return nil, err
	}
	r.out = &lockedWriter{w: r.out} // the producer's notes and the step lines
	ctx, cancel := context.WithCancel(ctx)
	p := &staleRollouts{k: g.MaxStaleness, first: first, last: g.Steps, lag: r.staleLag,
		pub: make(chan versionSnap, g.Steps-first+1), out: make(chan produced, g.MaxStaleness),
		stop: cancel, done: make(chan struct{})}
	p.pub <- versionSnap{first, snap}
	p.restore = func() {}
	if r.servers != nil {
		p.restore = overlapThreads()
	}
	view := *r // copied here, before the loop writes r again
	go p.run(ctx, &view)
	return p, nil
}

// run rolls out every step in order on view, a copy of the run, with its
// model set to the snapshot of the step's version.
func (p *staleRollouts) run(ctx context.Context, view *Run) {
	defer close(p.done)
	snaps := map[int]*policy.Model{}
	for s := p.first + 1; s <= p.last; s++ {
		v := p.versionFor(s)
		for snaps[v] == nil {
			select {
			case sn := <-p.pub:
				snaps[sn.v] = sn.m
			case <-ctx.Done():
				return
			}
		}
		for old := range snaps {
			if old < v {
				delete(snaps, old) // the schedule never goes back
			}
		}
		view.Model = snaps[v]
		out := produced{step: s, version: v, m: Metrics{}, rng: stepRNG(view.Cfg.Seed, "grpo", s)}
		// Servers load version v as weight_version v+1, the step that
		// samples from it in the synchronous loop.
		out.b, out.err = view.drawStep(ctx, s, v+1, out.m)
		select {
		case p.out <- out:
		case <-ctx.Done():
			return
		}
		if out.err != nil {
			return
		}
	}
}

// updated hands the producer the weights after update step (version
// step), copied (LoRA adapters merged in), when a step still to come
// samples from them.
func (p *staleRollouts) updated(step int, m *policy.Model) error {
	if !p.needed(step) {
		return nil
	}
	snap, err := m.Merged()
	if err != nil {
		return err
	}
	p.pub <- versionSnap{step, snap}
	return nil
}

// close stops the producer and waits for it.
func (p *staleRollouts) close() {
	p.stop()
	<-p.done
	p.restore()
}

// overlapThreads gives the Go scheduler one more thread than the kernels
// use while a producer drives rollout servers beside the update, and
// returns what undoes it. The producer's share of a rollout is short and
// waits on the network: a response to read, a tool call to hand to the
// sandbox, the next request to send. With as many threads as the update
// keeps busy, each of those waits for the update to yield the processor
// (Go preempts a goroutine after 10 ms, and every turn of every
// trajectory waits again), and the server's batches thin out while the
// rows wait; with a thread of its own the producer runs as soon as the
// operating system wakes it. The kernels stay on the threads they had
// (backend.PinThreads), so the update splits its work as it did and its
// results do not change.
func overlapThreads() (restore func()) {
	n := runtime.GOMAXPROCS(0)
	prev := backend.PinThreads(backend.Threads())
	runtime.GOMAXPROCS(n + 1)
	return func() {
		runtime.GOMAXPROCS(n)
		backend.PinThreads(prev)
	}
}

// batch waits for the rollouts of step, records the wait
// (timing/wait_rollout_s), the draw's metrics and the staleness
// (rollout/staleness/mean), and drops a batch sampled from weights more
// than k versions older than those it would update, counting its
// rollouts in rollout/dropped_stale: the step then makes no update.
func (p *staleRollouts) batch(ctx context.Context, step int, m Metrics) (*stepBatch, *rand.Rand, error) {
	t0 := time.Now()
	var got produced
	select {
	case got = <-p.out:
	case <-ctx.Done():
		return nil, nil, ErrInterrupted
	}
	if got.err != nil {
		if ctx.Err() != nil {
			return nil, nil, ErrInterrupted
		}
		return nil, nil, got.err
	}
	if got.step != step {
		panic(fmt.Sprintf("trainer: stale rollouts of step %d handed to step %d", got.step, step))
	}
	maps.Copy(m, got.m)
	m["timing/wait_rollout_s"] = time.Since(t0).Seconds()
	staleness := step - 1 - got.version
	m["rollout/staleness/mean"] = float64(staleness)
	m["rollout/dropped_stale"] = 0
	if staleness > p.k {
		m["rollout/dropped_stale"] = float64(len(got.b.train))
		got.b.train = nil
	}
	return got.b, got.rng, nil
}

// proximal is the decoupled objective's correction of stale rollouts
// (max_staleness ≥ 1): it recomputes the log-probs of trajs under the
// weights about to be updated (π_old, at the rollouts' temperature) and
// returns the old log-probs of the ratio and the current log-probs of
// the first minibatch, indexed as trajs, and each kept token's truncated
// importance weight min(π_old/π_behav, tis_cap), π_behav being behav (the
// sampling-time log-probs, lossSeqs). With tis_cap 0 the ratio stays
// against behav and there are no weights. It records
// rollout/logprob_diff/mean over every sampled token, and
// rollout/tis_weight/mean and rollout/tis_capped_frac over the kept
// mask-1 tokens.
func (r *Run) proximal(trajs []*rollout.Trajectory, keep []int, behav [][]float32, mask [][]uint8, m Metrics) (old, cur, isw [][]float32, err error) {
	seqs := make([][]int, len(trajs))
	for i, t := range trajs {
		seqs[i] = t.Tokens
	}
	cur, err = r.red.logProbs(r.Model, trajs, seqs)
	if err != nil {
		return nil, nil, nil, err
	}
	m["rollout/logprob_diff/mean"] = logprobDiffOf(trajs, cur)
	c := r.Cfg.GRPO.TISCap
	if c == 0 {
		return behav, cur, nil, nil
	}
	isw = make([][]float32, len(trajs))
	sum, capped, n := 0.0, 0, 0
	for _, i := range keep {
		w := make([]float32, len(mask[i]))
		for t, mk := range mask[i] {
			if mk == 0 {
				continue
			}
			x := math.Min(math.Exp(float64(cur[i][t])-float64(behav[i][t])), c)
			w[t] = float32(x)
			sum += x
			n++
			if x == c {
				capped++
			}
		}
		isw[i] = w
	}
	if n > 0 {
		m["rollout/tis_weight/mean"] = sum / float64(n)
		m["rollout/tis_capped_frac"] = float64(capped) / float64(n)
	}
	return cur, cur, isw, nil
}

// validateStaleness checks grpo.max_staleness and grpo.tis_cap, and
// refuses the features whose state a producer running ahead would read
// before the trainer wrote it.
func (c *Config) validateStaleness() error {
	g := c.GRPO
	switch {
	case g.MaxStaleness < 0:
		return fmt.Errorf("config: grpo.max_staleness must be >= 0 (0 is the synchronous loop; k >= 1 samples the next steps while the trainer updates), got %d", g.MaxStaleness)
	case !(g.TISCap == 0 || g.TISCap >= 1) || math.IsInf(g.TISCap, 1):
		return fmt.Errorf("config: grpo.tis_cap must be 0 (no importance correction) or a finite value >= 1 (verl uses 2), got %v", g.TISCap)
	case g.MaxStaleness == 0:
		return nil
	case c.Tool.Library.Atlass.Enabled:
		return fmt.Errorf("config: grpo.max_staleness %d runs rollouts ahead of the updates, but tool.library.atlass runs its phases on the policy being trained: set grpo.max_staleness: 0 or turn atlass off", g.MaxStaleness)
	case c.Tool.Library.Grow:
		return fmt.Errorf("config: grpo.max_staleness %d runs rollouts ahead of the updates, but tool.library.grow changes the library they retrieve from as it goes: set grpo.max_staleness: 0 or grow: false", g.MaxStaleness)
	case c.Prompt.Demos.Select == "embed":
		return fmt.Errorf("config: grpo.max_staleness %d runs rollouts ahead of the updates, but prompt.demos.select embed embeds with the policy being trained: set grpo.max_staleness: 0 or prompt.demos.select: bm25", g.MaxStaleness)
	}
	return nil
}

// lockedWriter serialises writes from the trainer and its producer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
