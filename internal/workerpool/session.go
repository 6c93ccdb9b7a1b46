package workerpool

import "sync"

// Session binds the calls of one stateful session to one slot, so that
// they run one after another on one worker, which keeps the session's
// state under its id. A stateless session (id 0) binds nothing: each call
// takes any free slot. A Session is safe for concurrent use.
type Session struct {
	pool   *Pool
	id     uint64 // 0 when stateless
	mu     sync.Mutex
	slot   *Slot
	closed bool
}

// NewSession returns a new session of p, with a fresh id when stateful.
func (p *Pool) NewSession(stateful bool) *Session {
	s := &Session{pool: p}
	if stateful {
		s.id = p.lastSession.Add(1)
	}
	return s
}

// Do runs call with the session's binding and id, after the session's
// earlier calls; call passes them to Pool.Run (bound is nil for a
// stateless session) and tells the worker the id. Do returns false,
// without running call, once the session is closed.
func (s *Session) Do(call func(bound **Slot, id uint64)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.id == 0 {
		call(nil, 0)
	} else {
		call(&s.slot, s.id)
	}
	return true
}

// Close ends the session, after a call that is running: the worker of
// its slot drops the session's state with its next request. Close may be
// called more than once.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && s.slot != nil {
		s.pool.endSession(s.slot, s.id)
	}
	s.closed = true
}

// endSession has the worker of sl drop the state of session id with its
// next request.
func (p *Pool) endSession(sl *Slot, id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sl.proc != nil {
		sl.drop = append(sl.drop, id)
	}
}
