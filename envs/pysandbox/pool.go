package pysandbox

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/artist-rl/artist/envs"
)

// killGrace is how long past a call's timeout the parent waits for the
// driver's answer (the driver kills the runner at the timeout itself)
// before it kills the whole jail.
const killGrace = 500 * time.Millisecond

// errClosed answers calls made after Close.
var errClosed = errors.New("pysandbox: closed")

// pool holds the worker slots of one Sandbox, as the Go sandbox's pool
// does: a slot is used by one call at a time; its jail starts with the
// first call that needs it and is replaced in the background after it
// dies or is killed.
type pool struct {
	jail   *jail
	hello  hello
	mu     sync.Mutex
	slots  []*slot
	wake   chan struct{} // closed and replaced whenever a slot is freed
	closed bool
}

// slot is one place for a worker. Fields are guarded by pool.mu.
type slot struct {
	busy bool
	proc *proc
	drop []uint64 // sessions to end with the next request
	seq  uint64
}

func newPool(j *jail, h hello, n int) *pool {
	p := &pool{jail: j, hello: h, wake: make(chan struct{})}
	for range n {
		p.slots = append(p.slots, &slot{})
	}
	return p
}

// warm starts the first slot's worker and returns the libraries it
// reported.
func (p *pool) warm(ctx context.Context) ([]string, error) {
	pr, err := startProc(ctx, p.jail, p.hello)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.slots[0].proc = pr
	p.mu.Unlock()
	return pr.libraries, nil
}

// acquire waits for a free slot: want when it is not nil, else preferably
// one whose worker is running.
func (p *pool) acquire(ctx context.Context, want *slot) (*slot, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, errClosed
		}
		if sl := p.pick(want); sl != nil {
			sl.busy = true
			p.mu.Unlock()
			return sl, nil
		}
		wake := p.wake
		p.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// pick returns a free slot as acquire describes, or nil. p.mu is held.
func (p *pool) pick(want *slot) *slot {
	if want != nil {
		if want.busy {
			return nil
		}
		return want
	}
	var idle *slot
	for _, sl := range p.slots {
		switch {
		case sl.busy:
		case sl.proc != nil:
			return sl
		case idle == nil:
			idle = sl
		}
	}
	return idle
}

// release frees sl. A slot whose worker ended gets a new one first, in the
// background, unless the pool is closed.
func (p *pool) release(sl *slot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sl.proc == nil && !p.closed {
		go p.refill(sl)
		return
	}
	sl.busy = false
	p.broadcast()
}

// broadcast wakes the callers waiting in acquire. p.mu is held.
func (p *pool) broadcast() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// refill starts a worker for the busy slot sl, then frees it. A worker that
// fails to start is left for the next call to start, which reports why.
func (p *pool) refill(sl *slot) {
	pr, err := startProc(context.Background(), p.jail, p.hello)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil:
	case p.closed:
		pr.kill()
	default:
		sl.proc = pr
	}
	sl.busy = false
	p.broadcast()
}

// call runs req on the worker of sl, which the caller holds, starting the
// worker when there is none. A worker that fails is killed with its jail
// and reaped, and the reply says what happened.
func (p *pool) call(ctx context.Context, sl *slot, req request) reply {
	p.mu.Lock()
	pr := sl.proc
	req.drop, sl.drop = sl.drop, nil
	sl.seq++
	req.seq = sl.seq
	p.mu.Unlock()
	if pr == nil {
		var err error
		if pr, err = startProc(ctx, p.jail, p.hello); err != nil {
			if ctx.Err() != nil {
				return ctxReply(ctx, req.timeout)
			}
			return reply{status: envs.StatusError, message: "sandbox unavailable: " + err.Error(), err: err.Error()}
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			pr.kill()
			return closedReply()
		}
		sl.proc = pr
		p.mu.Unlock()
	}
	var rep reply
	err := pr.exchange(ctx, &req, &rep, time.Now().Add(req.timeout+killGrace))
	if err == nil && rep.seq != req.seq {
		err = fmt.Errorf("pysandbox: reply %d to request %d", rep.seq, req.seq)
	}
	if err == nil && !rep.retire {
		return rep
	}
	if err != nil {
		rep = p.failure(ctx, pr, err, req.timeout)
	}
	pr.kill()
	p.mu.Lock()
	if sl.proc == pr {
		sl.proc = nil
	}
	p.mu.Unlock()
	return rep
}

// failure explains an exchange with pr that failed with err.
func (p *pool) failure(ctx context.Context, pr *proc, err error, timeout time.Duration) reply {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	switch {
	case closed:
		return closedReply()
	case ctx.Err() != nil:
		return ctxReply(ctx, timeout)
	case isDeadline(err):
		return timeoutReply(timeout)
	}
	msg := "worker stopped answering"
	return reply{status: envs.StatusError, message: msg, err: fmt.Sprintf("%s: %v\n%s", msg, err, pr.report())}
}

// endSession has the worker of sl drop the runner of session id with its
// next request.
func (p *pool) endSession(sl *slot, id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sl.proc != nil {
		sl.drop = append(sl.drop, id)
	}
}

// close kills every worker, interrupting running calls, and returns once
// all calls have returned and all workers are reaped.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	var procs []*proc
	for _, sl := range p.slots {
		if sl.proc != nil {
			procs = append(procs, sl.proc)
			sl.proc = nil
		}
	}
	p.broadcast()
	p.mu.Unlock()
	for _, pr := range procs {
		pr.kill()
	}
	for {
		p.mu.Lock()
		busy := false
		for _, sl := range p.slots {
			busy = busy || sl.busy
		}
		wake := p.wake
		p.mu.Unlock()
		if !busy {
			return
		}
		<-wake
	}
}

// ctxReply answers a call whose context ended: a passed deadline is a
// timeout, a cancellation an error.
func ctxReply(ctx context.Context, timeout time.Duration) reply {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return timeoutReply(timeout)
	}
	return reply{status: envs.StatusError, message: "call canceled", err: context.Cause(ctx).Error()}
}

func timeoutReply(timeout time.Duration) reply {
	msg := fmt.Sprintf("timeout after %v", timeout.Round(time.Millisecond))
	return reply{status: envs.StatusTimeout, message: msg, err: msg}
}

func closedReply() reply {
	return reply{status: envs.StatusError, message: "sandbox closed", err: errClosed.Error()}
}
