package taubench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/internal/pyval"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

var (
	_ envs.UserTool    = (*Tool)(nil)
	_ envs.UserSession = (*Session)(nil)
)

// CallSyntax tells the policy how to write tool calls.
const CallSyntax = `write a call as {"name": "get_user_details", "arguments": {"user_id": "..."}}, several as a JSON list of such objects`

// ParseActions reads the tool actions of one tool block: a JSON object
// {"name": ..., "arguments": {...}} ("kwargs" is read as "arguments"), or
// a JSON list of them. Numbers keep Python's typing (pyval). A block with
// no call is an empty list.
func ParseActions(input string) ([]Action, error) {
	s := strings.TrimSpace(input)
	if s == "" {
		return nil, nil
	}
	v, err := pyval.DecodeJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("taubench: the call is not JSON: %w", err)
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	out := make([]Action, 0, len(list))
	for i, x := range list {
		d, ok := x.(*pyval.Dict)
		if !ok || d.Str("name") == "" {
			return nil, fmt.Errorf("taubench: call %d is not an object with a \"name\"", i)
		}
		args, ok := d.Get("arguments")
		if !ok {
			args, _ = d.Get("kwargs")
		}
		kw, ok := args.(*pyval.Dict)
		if args != nil && !ok {
			return nil, fmt.Errorf("taubench: call %d (%s): \"arguments\" must be an object, got %s", i, d.Str("name"), pyval.TypeName(args))
		}
		if kw == nil {
			kw = pyval.NewDict()
		}
		out = append(out, Action{Name: d.Str("name"), Kwargs: kw})
	}
	return out, nil
}

// Tool is the envs.UserTool of a set of tasks: each trajectory gets a
// Session on a fresh database of the domain and its own simulated user.
// Tasks are found by envs.Task ID.
type Tool struct {
	domain  *Domain
	tasks   map[string]Task
	newUser func(id string, t Task) (User, error)
	format  format.Format
	// maxReplies bounds the user's answers per trajectory.
	maxReplies int
}

// MaxReplies implements envs.UserTool.
func (t *Tool) MaxReplies() int { return t.maxReplies }

// Call answers with an error: calls run in a session (OpenSession).
func (t *Tool) Call(context.Context, string) envs.Result {
	return errResult("tau-bench calls need a session: open one with OpenSession")
}

// OpenSession implements envs.SessionTool: a fresh database and the
// task's user, positioned after its opening message (the task's prompt).
// An unknown task gives a session that answers every call with an error
// and whose user ends the conversation.
func (t *Tool) OpenSession(task envs.Task) envs.ToolSession {
	tt, ok := t.tasks[task.ID]
	if !ok {
		return &Session{broken: fmt.Sprintf("no tau-bench task %q in this tool", task.ID)}
	}
	u, err := t.newUser(task.ID, tt)
	if err != nil {
		return &Session{broken: fmt.Sprintf("cannot start the user of %s: %v", task.ID, err)}
	}
	return &Session{env: t.domain.NewEnv(), user: u, format: t.format}
}

// Session is one trajectory's episode: its database and its user. The
// policy's tool blocks are tool actions; each end of its turn is a
// respond action whose content is what it said. Its methods may be
// called from any goroutine.
type Session struct {
	mu     sync.Mutex
	env    *Env
	user   User
	format format.Format
	broken string
	over   bool // transfer_to_human_agents was called, or a tool failed the episode
	rec    record
}

var _ envs.StateSession = (*Session)(nil)

// record is the episode as TrajectoryOutcome reads it back, kept while it
// is played: the outcome so far and the inputs it came from.
type record struct {
	o       Outcome
	inputs  []string // every tool block's input, in order
	turns   []int    // the respond actions before each block
	saids   []string // what the agent said at each end of its turn, as Reply got it
	inexact bool     // a block was refused unrun (cancelled): a replay would run it
}

// End is what a tau-bench session leaves (Session.EndState): the episode's
// Outcome, as TrajectoryOutcome computes it from the trajectory, and the
// tool-block inputs, their turns and the respond messages it was played
// from, so a reader can check that the trajectory it scores is that
// episode.
type End struct {
	Outcome Outcome
	Inputs  []string
	Turns   []int
	Saids   []string
}

// EndState implements envs.StateSession: an *End, or nil when the
// episode cannot be read back exactly (a broken session, a block refused
// unrun).
func (s *Session) EndState() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != "" || s.env == nil || s.rec.inexact {
		return nil
	}
	o := s.rec.o
	o.Hash = s.env.Hash()
	o.Actions, o.Messages = slices.Clone(o.Actions), slices.Clone(o.Messages)
	return &End{Outcome: o, Inputs: slices.Clone(s.rec.inputs), Turns: slices.Clone(s.rec.turns), Saids: slices.Clone(s.rec.saids)}
}

// played reports whether t holds exactly the episode e was played from:
// the same tool blocks in the same turns, and the same replies.
func (e *End) played(t *rollout.Trajectory) bool {
	if len(t.Calls) != len(e.Inputs) || len(t.Replies) != len(e.Saids) {
		return false
	}
	for i, c := range t.Calls {
		if c.Input != e.Inputs[i] || c.Turn != e.Turns[i] {
			return false
		}
	}
	for i, r := range t.Replies {
		if r.Said != e.Saids[i] {
			return false
		}
	}
	return true
}

// ended reports that the outcome takes no more actions.
func (r *record) ended() bool { return r.o.Done || r.o.Failed }

// Call runs the actions of one tool block (ParseActions) and returns their
// observations, one per line. transfer_to_human_agents ends the episode:
// the user says nothing more. respond is refused: the policy speaks to
// the user by ending its turn.
func (s *Session) Call(ctx context.Context, input string) envs.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != "" {
		return errResult(s.broken)
	}
	if err := ctx.Err(); err != nil {
		s.rec.inexact = true
		return errResult(err.Error())
	}
	s.rec.inputs = append(s.rec.inputs, input)
	s.rec.turns = append(s.rec.turns, len(s.rec.saids))
	acts, err := ParseActions(input)
	if err != nil {
		return errResult(fmt.Sprintf("%v; %s", err, CallSyntax))
	}
	if len(acts) == 0 {
		return envs.Result{Status: envs.StatusEmpty, Output: "(no call)"}
	}
	lines := make([]string, len(acts))
	for i, a := range acts {
		lines[i] = s.step(a)
	}
	return family.BlockResult(lines, func(l string) bool {
		return strings.HasPrefix(l, "Error: ") || strings.HasPrefix(l, "Unknown action ")
	})
}

func (s *Session) step(a Action) string {
	rec := !s.rec.ended()
	if rec {
		s.rec.o.Actions = append(s.rec.o.Actions, a)
	}
	switch {
	case s.over:
		return "Error: the episode is over"
	case a.Name == Respond:
		return "Error: respond by ending your turn: your message to the user is the text of your turn"
	}
	out, err := s.env.Call(a.Name, a.Kwargs)
	if errors.Is(err, ErrNoOutput) {
		s.over = true
		s.rec.o.Failed = s.rec.o.Failed || rec
		return "Error: " + err.Error()
	}
	if a.Name == TerminateTool {
		s.over = true
		s.rec.o.Done = s.rec.o.Done || rec
	}
	return out
}

// Reply implements envs.UserSession: the agent's respond message is
// Message(said); the user's answer comes back unless it holds StopMarker, the
// episode is over, or the user fails, which all end the conversation.
func (s *Session) Reply(ctx context.Context, said string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rec.saids = append(s.rec.saids, said)
	if s.broken != "" || s.over {
		return "", true
	}
	said = Message(said, s.format)
	msg, err := s.user.Reply(ctx, said)
	done := err != nil || IsStop(msg)
	if !s.rec.ended() {
		kw := pyval.NewDict()
		kw.Set("content", said)
		s.rec.o.Actions = append(s.rec.o.Actions, Action{Name: Respond, Kwargs: kw})
		s.rec.o.Messages = append(s.rec.o.Messages, said)
		s.rec.o.Done = done
	}
	if done {
		return "", true
	}
	return msg, false
}

// Close implements envs.ToolSession; it never fails.
func (s *Session) Close() error { return nil }

func errResult(msg string) envs.Result {
	return envs.Result{Status: envs.StatusError, Output: "Error: " + msg, Error: msg}
}

// Message is what a respond action of a policy's turn says: the turn's
// text with every think block (Format.Think) and unclosed tag pair
// removed, trimmed.
func Message(said string, f format.Format) string {
	for _, name := range []string{f.Think} {
		if name == "" {
			continue
		}
		open, closeTag := format.Open(name), format.Close(name)
		for {
			i := strings.Index(said, open)
			if i < 0 {
				break
			}
			j := strings.Index(said[i:], closeTag)
			if j < 0 {
				said = said[:i]
				break
			}
			said = said[:i] + said[i+j+len(closeTag):]
		}
	}
	return strings.TrimSpace(said)
}

// TrajectoryOutcome replays a rollout's episode on a fresh database of d:
// its tool blocks (t.Calls, in order; one that does not parse adds no
// action) and its respond messages (t.Replies), each turn's calls before
// the message that ended the turn. Done is true when the user ended the
// conversation or transfer_to_human_agents was called.
func TrajectoryOutcome(d *Domain, t *rollout.Trajectory, f format.Format) Outcome {
	env := d.NewEnv()
	o := Outcome{}
	calls := t.Calls
	run := func(turn int) {
		for len(calls) > 0 && calls[0].Turn <= turn {
			acts, _ := ParseActions(calls[0].Input)
			calls = calls[1:]
			for _, a := range acts {
				if o.Done || o.Failed {
					return
				}
				o.Actions = append(o.Actions, a)
				if a.Name == Respond {
					continue
				}
				if _, err := env.Call(a.Name, a.Kwargs); err != nil {
					o.Failed = true
				}
				o.Done = a.Name == TerminateTool
			}
		}
	}
	for k, r := range t.Replies {
		run(k)
		if o.Done || o.Failed {
			break
		}
		msg := Message(r.Said, f)
		kw := pyval.NewDict()
		kw.Set("content", msg)
		o.Actions = append(o.Actions, Action{Name: Respond, Kwargs: kw})
		o.Messages = append(o.Messages, msg)
		o.Done = r.Done
	}
	if !o.Done && !o.Failed {
		run(len(t.Replies))
	}
	o.Hash = env.Hash()
	return o
}
