package sandbox

import (
	"context"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/workerpool"
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
	s  *Sandbox
	ws *workerpool.Session
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
	return &Session{s: s, ws: s.pool.NewSession(s.cfg.Stateful)}
}

// Call runs input as Run does and returns what the policy reads.
func (ss *Session) Call(ctx context.Context, input string) envs.Result {
	return ss.Run(ctx, input).Result()
}

// Run runs input in the session's interpreter, with the limits and
// outcomes of Sandbox.Run. After Close it answers "session closed".
func (ss *Session) Run(ctx context.Context, input string) Outcome {
	var o Outcome
	if !ss.ws.Do(func(bound **workerpool.Slot, id uint64) { o = ss.s.run(ctx, bound, id, input) }) {
		return Outcome{Status: envs.StatusError, Message: "session closed", Error: "sandbox: session closed"}
	}
	return o
}

// Close ends the session and frees its interpreter, after a call that is
// running. It always returns nil.
func (ss *Session) Close() error {
	ss.ws.Close()
	return nil
}
