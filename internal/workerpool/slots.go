package workerpool

import "context"

// acquire waits for a free slot: want when it is not nil, else preferably
// one whose worker is running. It fails with errClosed once the pool is
// closed, and with ctx's error when ctx ends first.
func (p *Pool) acquire(ctx context.Context, want *Slot) (*Slot, error) {
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
func (p *Pool) pick(want *Slot) *Slot {
	if want != nil {
		if want.busy {
			return nil
		}
		return want
	}
	var idle *Slot
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
func (p *Pool) release(sl *Slot) {
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
func (p *Pool) broadcast() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// refill starts a worker for the busy slot sl, then frees it. A worker that
// fails to start is left for the next call to start, which reports why.
func (p *Pool) refill(sl *Slot) {
	pr, err := p.cfg.Start(context.Background())
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil:
	case p.closed:
		pr.Kill()
	default:
		sl.proc = pr
	}
	sl.busy = false
	p.broadcast()
}

// Close kills every worker, interrupting running calls, and returns once
// all calls have returned and all workers are reaped. Later calls fail as
// closed. Close may be called more than once.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	var procs []*Proc
	for _, sl := range p.slots {
		if sl.proc != nil {
			procs = append(procs, sl.proc)
			sl.proc = nil
		}
	}
	p.broadcast()
	p.mu.Unlock()
	for _, pr := range procs {
		pr.Kill()
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
