package pysandbox

import (
	"context"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
)

// Session is the code tool of one trajectory. With Limits.Stateful set,
// its calls run one after another in one runner of one worker, so a later
// call sees the globals (variables, functions, imports) of earlier ones;
// otherwise each call starts fresh, exactly like Sandbox.Call. Calls of one
// Session are serialized; a Session is safe for concurrent use.
//
// A session's globals are lost when its runner ends (after a timeout, a
// crash or a limit) or is evicted (a worker keeps 16 sessions); later
// calls then fail on the undefined names they use. Files written in /tmp
// do not outlast a call. Close releases the runner.
type Session struct {
	s      *Sandbox
	id     uint64 // 0 when the sandbox is stateless
	mu     sync.Mutex
	slot   *slot
	closed bool
}

var _ envs.ToolSession = (*Session)(nil)

// OpenSession returns Session() as an envs.ToolSession, so the rollout
// engine gives each trajectory its own session.
func (s *Sandbox) OpenSession(envs.Task) envs.ToolSession { return s.Session() }

// Session returns a new session of s.
func (s *Sandbox) Session() *Session {
	ss := &Session{s: s}
	if s.cfg.Limits.Stateful {
		ss.id = s.lastSession.Add(1)
	}
	return ss
}

// Call runs input as Run does and returns what the policy reads.
func (ss *Session) Call(ctx context.Context, input string) envs.Result {
	return Result(ss.Run(ctx, input))
}

// Run runs input in the session's runner, with the limits and outcomes
// of Sandbox.Run. After Close it answers "session closed".
func (ss *Session) Run(ctx context.Context, input string) sandbox.Outcome {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return sandbox.Outcome{Status: envs.StatusError, Message: "session closed", Error: "pysandbox: session closed"}
	}
	if ss.id == 0 {
		return ss.s.run(ctx, nil, 0, input)
	}
	return ss.s.run(ctx, &ss.slot, ss.id, input)
}

// Close ends the session and frees its runner. It always returns nil.
func (ss *Session) Close() error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.closed && ss.slot != nil {
		ss.s.pool.endSession(ss.slot, ss.id)
	}
	ss.closed = true
	return nil
}
