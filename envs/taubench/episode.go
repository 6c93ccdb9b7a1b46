package taubench

import (
	"context"
	"errors"
	"fmt"

	"github.com/artist-rl/artist/internal/pyval"
)

// DefaultMaxSteps is the reference tool-calling agent's step limit: 30
// agent actions, after which an unfinished episode scores 0.
const DefaultMaxSteps = 30

// Turn is one entry of an episode's transcript.
type Turn struct {
	// Role is "user" (the simulated customer), "agent" (a respond
	// action), or "tool" (a tool call and its observation).
	Role string
	// Text is what the user said, what the agent said, or the tool's
	// observation.
	Text string
	// Action is the agent's action for "agent" and "tool" turns.
	Action *Action
}

// Episode is one conversation of an agent with a simulated user on a fresh
// database. Step takes the agent's actions and returns observations; the
// episode is done when the user's reply contains StopMarker or the agent
// calls transfer_to_human_agents. It is not safe for concurrent use.
type Episode struct {
	Task Task
	// MaxSteps bounds the agent actions; 0 means DefaultMaxSteps.
	MaxSteps int
	// Turns is the transcript, the user's first utterance first.
	Turns []Turn

	env      *Env
	user     User
	actions  []Action
	messages []string
	done     bool
	failed   bool
}

// ErrEpisodeOver reports a Step after the episode ended or ran out of
// steps.
var ErrEpisodeOver = errors.New("taubench: the episode is over (done, failed, or out of steps): start a new one")

// NewEpisode resets the user on the task's instruction and returns the
// episode and the user's first utterance, the agent's first observation.
func NewEpisode(ctx context.Context, d *Domain, t Task, u User) (*Episode, string, error) {
	first, err := u.Start(ctx, t.Instruction)
	if err != nil {
		return nil, "", fmt.Errorf("taubench: start user: %w", err)
	}
	e := &Episode{Task: t, env: d.NewEnv(), user: u}
	e.Turns = append(e.Turns, Turn{Role: "user", Text: first})
	if IsStop(first) {
		e.done = true
	}
	return e, first, nil
}

// Env returns the episode's environment.
func (e *Episode) Env() *Env { return e.env }

// Done reports whether the episode has ended.
func (e *Episode) Done() bool { return e.done }

func (e *Episode) maxSteps() int {
	if e.MaxSteps > 0 {
		return e.MaxSteps
	}
	return DefaultMaxSteps
}

// Step runs one agent action. A respond action's content goes to the
// user, whose reply is the observation; any other action is a tool call
// (Env.Call). done reports that the episode ended with this step. An error
// is returned for a step after the end (ErrEpisodeOver), a user that fails,
// or a tool that fails the episode (ErrNoOutput; the episode then scores
// 0).
func (e *Episode) Step(ctx context.Context, a Action) (obs string, done bool, err error) {
	if e.done || e.failed || len(e.actions) >= e.maxSteps() {
		return "", e.done, ErrEpisodeOver
	}
	if a.Kwargs == nil {
		a.Kwargs = pyval.NewDict()
	}
	e.actions = append(e.actions, a)
	act := a
	if a.Name == Respond {
		content, _ := a.Kwargs.Get("content")
		msg := pyval.Str(content)
		e.messages = append(e.messages, msg)
		e.Turns = append(e.Turns, Turn{Role: "agent", Text: msg, Action: &act})
		reply, err := e.user.Reply(ctx, msg)
		if err != nil {
			return "", false, fmt.Errorf("taubench: user reply: %w", err)
		}
		e.Turns = append(e.Turns, Turn{Role: "user", Text: reply})
		e.done = IsStop(reply)
		return reply, e.done, nil
	}
	out, err := e.env.Call(a.Name, a.Kwargs)
	if err != nil {
		e.failed = true
		return "", false, err
	}
	e.Turns = append(e.Turns, Turn{Role: "tool", Text: out, Action: &act})
	e.done = a.Name == TerminateTool
	return out, e.done, nil
}

// Outcome returns what the reward needs of the episode so far.
func (e *Episode) Outcome() Outcome {
	return Outcome{Done: e.done, Failed: e.failed, Hash: e.env.Hash(), Messages: e.messages, Actions: e.actions}
}
