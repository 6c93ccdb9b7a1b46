package pysandbox

import (
	"context"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/internal/workerpool"
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
	s  *Sandbox
	ws *workerpool.Session
}

var _ envs.ToolSession = (*Session)(nil)

// OpenSession returns Session() as an envs.ToolSession, so the rollout
// engine gives each trajectory its own session.
func (s *Sandbox) OpenSession(envs.Task) envs.ToolSession { return s.Session() }

// Session returns a new session of s.
func (s *Sandbox) Session() *Session {
	return &Session{s: s, ws: s.pool.NewSession(s.cfg.Limits.Stateful)}
}

// Call runs input as Run does and returns what the policy reads.
func (ss *Session) Call(ctx context.Context, input string) envs.Result {
	return Result(ss.Run(ctx, input))
}

// Run runs input in the session's runner, with the limits and outcomes
// of Sandbox.Run. After Close it answers "session closed".
func (ss *Session) Run(ctx context.Context, input string) sandbox.Outcome {
	var o sandbox.Outcome
	if !ss.ws.Do(func(bound **workerpool.Slot, id uint64) { o = ss.s.run(ctx, bound, id, input) }) {
		return sandbox.Outcome{Status: envs.StatusError, Message: "session closed", Error: "pysandbox: session closed"}
	}
	return o
}

// Close ends the session and frees its runner. It always returns nil.
func (ss *Session) Close() error {
	ss.ws.Close()
	return nil
}
