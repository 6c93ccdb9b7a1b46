package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs"
)

// toolLoop is the tool side of one trajectory, the one implementation
// that Engine (on tokens) and Remote (on text) share: it opens the
// trajectory's own session of a SessionTool at its first call, runs each
// call under the timeout, defuses the result and records the call, and
// moves the session through the user turns of a multi-turn task.
type toolLoop struct {
	shared  envs.Tool
	timeout time.Duration
	traj    *Trajectory
	sess    envs.ToolSession // opened at the first call of a SessionTool
	replies int              // user messages a UserSession gave
}

func newToolLoop(tool envs.Tool, timeout time.Duration, t *Trajectory) *toolLoop {
	return &toolLoop{shared: tool, timeout: timeout, traj: t}
}

// tool returns the tool the trajectory's calls go to: its own session
// when the tool opens sessions, else the shared tool. A session opened
// late hears of every turn already started.
func (l *toolLoop) tool() envs.Tool {
	st, ok := l.shared.(envs.SessionTool)
	if !ok {
		return l.shared
	}
	if l.sess == nil {
		l.sess = st.OpenSession(l.traj.Task)
		if ts, ok := l.sess.(envs.TurnSession); ok {
			for k := 1; k < l.traj.Turns; k++ {
				ts.StartTurn(k)
			}
		}
	}
	return l.sess
}

// call runs input (see callTool). It may run concurrently with the calls
// of other trajectories, not with this one's.
func (l *toolLoop) call(ctx context.Context, input string) envs.Result {
	return callTool(ctx, l.tool(), l.timeout, input)
}

// record appends the call to the trajectory, in the current turn; the
// result is kept whole, truncated says whether the text holds it cut.
func (l *toolLoop) record(input string, res envs.Result, truncated bool) {
	l.traj.Calls = append(l.traj.Calls, Call{Input: input, Result: res, Truncated: truncated, Turn: l.traj.Turns - 1})
}

// endTurn decides what follows the policy's end of turn with stop s: the
// end of the rollout (s, or StopLength when the response budget is spent)
// when no later user message is left or the budget is spent; otherwise
// the index in Task.Turns of the message that comes next, after counting
// the turn and telling an open session. stop is "" when the rollout goes
// on.
func (l *toolLoop) endTurn(s StopReason, spent bool) (next int, stop StopReason) {
	t := l.traj
	switch {
	case t.Turns > len(t.Task.Turns):
		return 0, s
	case spent:
		return 0, StopLength
	}
	next = t.Turns - 1
	t.Turns++
	if ts, ok := l.sess.(envs.TurnSession); ok {
		ts.StartTurn(t.Turns - 1)
	}
	return next, ""
}

// userTool returns the tool as an envs.UserTool, when it is one.
func userTool(tool envs.Tool) (envs.UserTool, bool) {
	ut, ok := tool.(envs.UserTool)
	return ut, ok && ut.MaxReplies() > 0
}

// reply asks the trajectory's user (its envs.UserSession, opened now if
// no call opened it) for the message that answers said. A conversation
// ends (done) when the user says so, when MaxReplies messages were given,
// or when the session holds no user; otherwise the reply counts as a new
// turn and an envs.TurnSession hears of it.
func (l *toolLoop) reply(ctx context.Context, said string) (msg string, done bool) {
	ut, ok := userTool(l.shared)
	if !ok || l.replies >= ut.MaxReplies() {
		return "", true
	}
	us, ok := l.tool().(envs.UserSession)
	if !ok {
		return "", true
	}
	msg, done = us.Reply(ctx, said)
	if done {
		msg = ""
	}
	l.traj.Replies = append(l.traj.Replies, Reply{Said: said, Message: msg, Done: done})
	if done {
		return "", true
	}
	l.replies++
	l.traj.Turns++
	if ts, ok := l.sess.(envs.TurnSession); ok {
		ts.StartTurn(l.traj.Turns - 1)
	}
	return msg, false
}

// close ends the session, if one was opened.
func (l *toolLoop) close() {
	if l.sess != nil {
		l.sess.Close()
		if ss, ok := l.sess.(envs.StateSession); ok {
			l.traj.ToolState = ss.EndState()
		}
	}
}

// codeAfterOpen is the text after the last opening code tag of a segment,
// or the whole segment: the input of the call the segment's closing code
// tag asks for (Engine and Remote both read it so).
func codeAfterOpen(seg, open string) string {
	if i := strings.LastIndex(seg, open); i >= 0 {
		return seg[i+len(open):]
	}
	return seg
}

// callTool runs input under timeout; a tool that ignores its deadline is
// abandoned after toolGrace more and recorded as a timeout.
func callTool(ctx context.Context, tool envs.Tool, timeout time.Duration, input string) envs.Result {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ch := make(chan envs.Result, 1)
	go func() { ch <- tool.Call(cctx, input) }()
	grace := time.NewTimer(timeout + toolGrace)
	defer grace.Stop()
	select {
	case res := <-ch:
		return res
	case <-ctx.Done():
		return envs.Result{Status: envs.StatusError, Output: "error: canceled", Error: ctx.Err().Error()}
	case <-grace.C:
		msg := fmt.Sprintf("timed out after %v", timeout)
		return envs.Result{Status: envs.StatusTimeout, Output: "error: " + msg, Error: msg}
	}
}
