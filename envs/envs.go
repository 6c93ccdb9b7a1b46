// Package envs holds what a policy acts on: tasks, datasets and tools.
//
// A Task is one problem with its gold answer, or a conversation of several
// user turns. A Tool runs one call written by the policy and returns what
// the policy will read; a SessionTool gives each trajectory its own state.
// Subpackages provide concrete tools (sandbox: a Go interpreter; toollib:
// a library of verified functions around it; bfcl: the BFCL v3 APIs) and
// the task families (arith, mathtask, bfcl, taubench), which implement the
// interfaces of the family package and register there.
package envs

import (
	"context"
	"math/rand"
)

// Task is one problem. A multi-turn task (a conversation) has user
// messages after the first: the policy answers Prompt, and each time it
// ends its turn (end-of-sequence or the closing answer tag) the next of
// Turns is given to it, until none is left.
type Task struct {
	ID     string   `json:"id"`
	Prompt string   `json:"prompt"`          // the question (first user message) as the policy sees it
	Answer string   `json:"answer"`          // gold final answer; empty when the task is judged otherwise
	Turns  []string `json:"turns,omitempty"` // user messages of turns 1, 2, ... of a multi-turn task
}

// Sampler draws training tasks; all randomness comes from rng.
type Sampler interface {
	Sample(rng *rand.Rand, n int) []Task
}

// Status is the outcome of one tool call, as the paper distinguishes them.
type Status string

const (
	StatusOK      Status = "ok"      // ran and printed something
	StatusEmpty   Status = "empty"   // ran and printed nothing
	StatusError   Status = "error"   // did not compile, panicked, was denied or hit a limit
	StatusTimeout Status = "timeout" // ran past its deadline
)

// Success reports whether a call counts as successful for the tool reward.
func (s Status) Success() bool { return s == StatusOK }

// Result is what one tool call returned.
type Result struct {
	Status Status `json:"status"`
	Output string `json:"output"` // what the policy reads (stdout, or a message for empty/error/timeout)
	Error  string `json:"error,omitempty"`
}

// Tool runs one call. Implementations are safe for concurrent use and never
// panic: every failure is a Result with a non-OK status.
type Tool interface {
	Call(ctx context.Context, input string) Result
}

// ToolSession is a Tool bound to one trajectory; Close ends it.
type ToolSession interface {
	Tool
	Close() error
}

// SessionTool is a Tool that opens a session per trajectory, in which
// later calls may see the state earlier ones left (a stateful interpreter
// keeps the definitions of earlier programs; a function-calling
// environment keeps the task's API instances). The rollout engine opens
// one with the trajectory's task at its start and closes it when the
// rollout ends. OpenSession never fails: a session that cannot serve the
// task answers each call with an error result.
type SessionTool interface {
	Tool
	OpenSession(task Task) ToolSession
}

// TurnSession is a ToolSession of a multi-turn task that wants to know
// when the conversation moves on: the engine calls StartTurn(k) before the
// policy reads the user message of turn k (k >= 1), for example to offer
// functions withheld until that turn.
type TurnSession interface {
	ToolSession
	StartTurn(turn int)
}

// StateSession is a ToolSession that reports, once closed, what its
// calls left (a function-calling environment's end state), so that
// rewards score from it instead of replaying the calls: the rollout
// engine records EndState as the trajectory's ToolState.
type StateSession interface {
	ToolSession
	EndState() any
}

// UserTool is a SessionTool whose sessions are UserSessions: the later
// user messages of its tasks come from a user who reacts to what the
// policy says, not from Task.Turns.
type UserTool interface {
	SessionTool
	// MaxReplies bounds the user messages one session gives after the
	// task's prompt; the engine ends a conversation that reaches it.
	MaxReplies() int
}

// UserSession is a ToolSession with a user in it. Each time the policy
// ends its turn the engine calls Reply with what the policy said in that
// turn (its text since the last tool result or user message, without the
// token that ended the turn) and appends msg, with mask 0, as the next
// user message; done ends the conversation (the user is satisfied or
// gave up, or a tool ended the episode) and msg is then ignored. Reply
// may be slow (a served model); the engine calls it from any goroutine,
// never concurrently with the session's other methods, and never fails:
// a user that cannot answer ends the conversation.
type UserSession interface {
	ToolSession
	Reply(ctx context.Context, said string) (msg string, done bool)
}

// Disabled is a Tool that answers every call with an error. It is the
// ablation that shows how much a policy gains from a working tool.
type Disabled struct{}

// Call implements Tool.
func (Disabled) Call(context.Context, string) Result {
	return Result{Status: StatusError, Output: "error: tool disabled", Error: "tool disabled"}
}

// List is a finite, ordered list of tasks held in memory; as a Sampler it draws uniformly with
// replacement.
type List []Task

// Sample implements Sampler.
func (l List) Sample(rng *rand.Rand, n int) []Task {
	out := make([]Task, n)
	for i := range out {
		out[i] = l[rng.Intn(len(l))]
	}
	return out
}
