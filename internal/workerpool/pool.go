// Package workerpool runs the code of the code tools (packages
// envs/sandbox and envs/pysandbox) on a fixed number of worker processes:
// it starts, feeds, times and kills them. A worker is a process the tool
// starts (Config.Start) that speaks the protocol of Hello, Ready, Request
// and Reply: frames of package internal/frame, read on its file descriptor
// 3 and written on 4.
//
// Contract: a pool has Config.Workers slots, each used by one call at a
// time. A slot's worker starts with the first call that needs it and is
// replaced in the background after it dies, retires or is killed. A call
// waits for a free slot at most until its context ends, then runs for the
// time its budget leaves, and the pool waits Config.KillGrace more for
// the worker's own answer. A worker whose exchange fails (the deadline
// passed, the context ended, the stream broke or carried a reply to
// another request, the process died) is explained by Config.Explain while
// it may still be exiting on its own, then its process group is killed
// and reaped before the call returns; so is a worker whose reply retires
// it. Close kills every worker, interrupting running calls, and returns
// once all calls have returned and every worker has been reaped; later
// calls answer closed.
package workerpool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/artist-rl/artist/envs"
)

// Config says how a pool starts and judges its workers.
type Config struct {
	// Name names the tool in errors ("sandbox").
	Name string
	// Workers is the number of slots, at least 1.
	Workers int
	// Start starts a worker and waits until it is ready, at most until ctx
	// ends. A worker it returns is the pool's to kill.
	Start func(ctx context.Context) (*Proc, error)
	// KillGrace is how long past a call's timeout the pool waits for the
	// worker's own answer before it kills the worker.
	KillGrace time.Duration
	// Explain says why the exchange with a worker failed with err when
	// neither the pool closing, the call's context nor its deadline
	// explains it. It runs before the worker is killed.
	Explain func(pr *Proc, err error) Reply
}

// Pool is a set of worker slots; see the package comment for its
// contract. It is safe for concurrent use.
type Pool struct {
	cfg         Config
	mu          sync.Mutex
	slots       []*Slot
	wake        chan struct{} // closed and replaced whenever a slot is freed
	closed      bool
	lastSession atomic.Uint64
}

// errClosed is what acquire and start fail with once the pool is closed.
var errClosed = errors.New("workerpool: closed")

// Slot is one place for a worker. Fields are guarded by Pool.mu.
type Slot struct {
	busy bool
	proc *Proc    // nil until started, and after the worker ended
	drop []uint64 // sessions to end with the next request
	seq  uint64   // the number of the slot's last request
}

// New returns a pool of cfg.Workers slots. It starts no worker.
func New(cfg Config) *Pool {
	p := &Pool{cfg: cfg, wake: make(chan struct{})}
	for range cfg.Workers {
		p.slots = append(p.slots, &Slot{})
	}
	return p
}

// Seed gives the first slot the worker pr, which the caller started with
// Config.Start, when that slot has none; otherwise it kills pr.
func (p *Pool) Seed(pr *Proc) {
	p.mu.Lock()
	sl := p.slots[0]
	free := sl.proc == nil && !sl.busy && !p.closed
	if free {
		sl.proc = pr
	}
	p.mu.Unlock()
	if !free {
		pr.Kill()
	}
}

// Pids returns the process ids of the running workers, by slot; 0 for a
// slot without one.
func (p *Pool) Pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	pids := make([]int, len(p.slots))
	for i, sl := range p.slots {
		if sl.proc != nil {
			pids[i] = sl.proc.Pid()
		}
	}
	return pids
}

// Run runs req on a worker and returns its reply, or a reply that says
// why there is none: the pool closed, ctx ended (a passed deadline is a
// timeout), no time was left, the worker could not start, or the exchange
// failed. It waits for a slot (*bound when bound and *bound are not nil,
// else any free one, preferably with a running worker, which is then
// stored in *bound when bound is not nil), gives req the time budget
// leaves from then on, the slot's sessions to drop and its next sequence
// number, and starts the slot's worker when there is none.
func (p *Pool) Run(ctx context.Context, bound **Slot, budget func(context.Context) time.Duration, req Request) Reply {
	if ctx.Err() != nil {
		return ctxReply(ctx, 0)
	}
	var want *Slot
	if bound != nil {
		want = *bound
	}
	sl, err := p.acquire(ctx, want)
	if errors.Is(err, errClosed) {
		return p.closedReply()
	}
	if err != nil {
		return ctxReply(ctx, 0)
	}
	defer p.release(sl)
	if bound != nil {
		*bound = sl
	}
	if req.Timeout = budget(ctx); req.Timeout <= 0 {
		return Timeout(0)
	}
	return p.call(ctx, sl, req)
}

// call runs req on the worker of sl, which the caller holds, starting the
// worker when there is none.
func (p *Pool) call(ctx context.Context, sl *Slot, req Request) Reply {
	p.mu.Lock()
	pr := sl.proc
	req.Drop, sl.drop = sl.drop, nil
	sl.seq++
	req.Seq = sl.seq
	p.mu.Unlock()
	if pr == nil {
		var err error
		if pr, err = p.start(ctx, sl); err != nil {
			if errors.Is(err, errClosed) {
				return p.closedReply()
			}
			if ctx.Err() != nil {
				return ctxReply(ctx, req.Timeout)
			}
			return Reply{Status: envs.StatusError, Message: "sandbox unavailable: " + err.Error(), Err: err.Error()}
		}
	}
	var rep Reply
	err := pr.Exchange(ctx, &req, &rep, time.Now().Add(req.Timeout+p.cfg.KillGrace))
	if err == nil && rep.Seq != req.Seq {
		err = fmt.Errorf("%s: reply %d to request %d", p.cfg.Name, rep.Seq, req.Seq)
	}
	if err == nil && !rep.Retire {
		return rep
	}
	if err != nil {
		rep = p.failure(ctx, pr, err, req.Timeout)
	}
	pr.Kill()
	p.mu.Lock()
	if sl.proc == pr {
		sl.proc = nil
	}
	p.mu.Unlock()
	return rep
}

// start starts the worker of sl; the error is errClosed when the pool
// closed meanwhile.
func (p *Pool) start(ctx context.Context, sl *Slot) (*Proc, error) {
	pr, err := p.cfg.Start(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		pr.Kill()
		return nil, errClosed
	}
	sl.proc = pr
	return pr, nil
}

// failure explains an exchange with pr that failed with err.
func (p *Pool) failure(ctx context.Context, pr *Proc, err error, timeout time.Duration) Reply {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	switch {
	case closed:
		return p.closedReply()
	case ctx.Err() != nil:
		return ctxReply(ctx, timeout)
	case IsDeadline(err):
		return Timeout(timeout)
	}
	return p.cfg.Explain(pr, err)
}

// ctxReply answers a call whose context ended: a passed deadline is a
// timeout, a cancellation an error.
func ctxReply(ctx context.Context, timeout time.Duration) Reply {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Timeout(timeout)
	}
	return Reply{Status: envs.StatusError, Message: "call canceled", Err: context.Cause(ctx).Error()}
}

// Timeout answers a call that ran out of its timeout.
func Timeout(timeout time.Duration) Reply {
	msg := fmt.Sprintf("timeout after %v", timeout.Round(time.Millisecond))
	return Reply{Status: envs.StatusTimeout, Message: msg, Err: msg}
}

// closedReply answers a call that the pool's closing ended or refused.
func (p *Pool) closedReply() Reply {
	return Reply{Status: envs.StatusError, Message: "sandbox closed", Err: p.cfg.Name + ": closed"}
}
