package sandbox

import (
	"context"
	"sync"

	"github.com/artist-rl/artist/envs"
)

// Session is the code tool of one trajectory. With Config.Stateful set, its
// calls run one after another in one interpreter on one worker, so a later
// call sees the functions, types, variables and imports of earlier ones;
// otherwise each call starts fresh, exactly like Sandbox.Call. Calls of one
// Session are serialized; a Session is safe for concurrent use.
//
// A definition made in a session is lost when its worker is replaced (after
// a timeout, a crash or a limit); later calls then fail on the undefined
// names they use. Close releases the interpreter.
type Session struct {
	s      *Sandbox
	id     uint64 // 0 when the sandbox is stateless
	mu     sync.Mutex
	slot   *slot
	closed bool
}

var (
	_ envs.ToolSession = (*Session)(nil)
	_ envs.SessionTool = (*Sandbox)(nil)
)

// OpenSession returns Session() as an envs.ToolSession, so the rollout
// engine gives each trajectory its own session.
func (s *Sandbox) OpenSession(envs.Task) envs.ToolSession { return s.Session() }

// Session returns a new session of s.
func (s *Sandbox) Session() *Session {
	ss := &Session{s: s}
	if s.cfg.Stateful {
		ss.id = s.lastSession.Add(1)
	}
	return ss
}

// Call runs input as Run does and returns what the policy reads.
func (ss *Session) Call(ctx context.Context, input string) envs.Result {
	return ss.Run(ctx, input).Result()
}

// Run runs input in the session's interpreter, with the limits and
// outcomes of Sandbox.Run. After Close it answers "session closed".
func (ss *Session) Run(ctx context.Context, input string) Outcome {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return Outcome{Status: envs.StatusError, Message: "session closed", Error: "sandbox: session closed"}
	}
	if ss.id == 0 {
		return ss.s.run(ctx, nil, 0, input)
	}
	return ss.s.run(ctx, &ss.slot, ss.id, input)
}

// Close ends the session and frees its interpreter, after a call that is
// running. It always returns nil.
func (ss *Session) Close() error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.closed && ss.slot != nil {
		ss.s.pool.endSession(ss.slot, ss.id)
	}
	ss.closed = true
	return nil
}
