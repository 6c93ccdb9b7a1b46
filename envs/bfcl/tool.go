package bfcl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
)

var (
	_ envs.SessionTool = (*Tool)(nil)
	_ envs.TurnSession = (*Session)(nil)
)

// callSyntax tells the policy how to write calls after a parse error.
const callSyntax = "write a call as cd(folder='document'), several as [f(a=1), g()]"

// Tool runs BFCL calls for tasks whose ID names an entry it was built
// with; it is an envs.SessionTool: each trajectory gets fresh API
// instances of its entry (long-context extensions in that category), with
// the entry's withheld functions withheld until their turn. A Tool only
// reads its Data and entries, so it and its sessions may be used
// concurrently.
type Tool struct {
	d       *Data
	entries map[string]*Entry
}

// NewTool returns a Tool serving the entries by ID; of two entries with
// one ID the later wins. The entries must not be modified afterwards.
func NewTool(d *Data, entries []Entry) *Tool {
	t := &Tool{d: d, entries: make(map[string]*Entry, len(entries))}
	for i := range entries {
		t.entries[entries[i].ID] = &entries[i]
	}
	return t
}

// Call answers with an error result: calls run in a session, which holds
// the entry's instances (OpenSession).
func (t *Tool) Call(context.Context, string) envs.Result {
	return errorResult("BFCL calls need a session: open one with OpenSession")
}

// OpenSession returns a *Session on fresh instances of the entry named by
// task.ID, with Entry.Withheld(0) withheld. An unknown ID or instances
// that cannot be built give a session that answers every call with an
// error saying why.
func (t *Tool) OpenSession(task envs.Task) envs.ToolSession {
	e, ok := t.entries[task.ID]
	if !ok {
		return &Session{broken: fmt.Sprintf("no BFCL entry %q in this tool", task.ID)}
	}
	env, err := NewEnv(t.d, e.InvolvedClasses, e.InitialConfig, e.LongContext())
	if err != nil {
		return &Session{broken: fmt.Sprintf("cannot build the instances of %s: %v", e.ID, err)}
	}
	env.Withhold(e.Withheld(0)...)
	return &Session{entry: e, env: env}
}

// Session is one trajectory's instances of a BFCL entry. It implements
// envs.TurnSession. Its methods may be called from any goroutine, one at
// a time or not.
type Session struct {
	mu     sync.Mutex
	entry  *Entry
	env    *Env
	broken string // why the session cannot serve calls; "" when it can
	closed bool
	calls  []string
	// refused is set once a call named a function withheld at its turn.
	refused bool
}

var _ envs.StateSession = (*Session)(nil)

// Call runs the calls of one tool block: a Python-style list `[f(a=1),
// g()]`, calls separated by newlines or semicolons, a JSON object
// {"name": ..., "arguments": {...}} or a JSON array of them. The output
// holds one line per call, its result string, in order. The status is
// StatusError when any result starts with ErrorPrefix (Error then holds
// the first such result) or the block does not parse, StatusEmpty when
// the block holds no call, StatusOK otherwise.
func (s *Session) Call(ctx context.Context, input string) envs.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.broken != "":
		return errorResult(s.broken)
	case s.env == nil:
		return errorResult("the session was not opened by Tool.OpenSession")
	case s.closed:
		return errorResult("the session is closed")
	}
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return envs.Result{Status: envs.StatusTimeout, Output: "error: " + err.Error(), Error: err.Error()}
		}
		return errorResult(err.Error())
	}
	if emptyBlock(input) {
		return envs.Result{Status: envs.StatusEmpty, Output: "(no call)"}
	}
	cs, err := ParseCalls(input)
	if err != nil {
		return errorResult(fmt.Sprintf("cannot parse the call: %v; %s", err, callSyntax))
	}
	lines := make([]string, len(cs))
	for i, c := range cs {
		s.calls = append(s.calls, c.String())
		s.refused = s.refused || s.env.withheld[c.Name]
		lines[i] = s.env.ExecuteCall(c)
	}
	return family.BlockResult(lines, func(l string) bool { return strings.HasPrefix(l, ErrorPrefix) })
}

// StartTurn offers the functions withheld until turn or an earlier turn,
// so a skipped StartTurn cannot keep a function withheld for good.
func (s *Session) StartTurn(turn int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.env == nil {
		return
	}
	for t, fs := range s.entry.MissedFunction {
		if t <= turn {
			s.env.Offer(fs...)
		}
	}
}

// Close ends the session; later calls answer with an error. It never
// fails.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// End is what a BFCL session leaves (Session.EndState): the entry, every
// call it executed in the BFCL call syntax, and its instances, which no
// call changes once the session is closed. Exact is false when a call
// was refused because its function was still withheld: the state then
// differs from what the same calls leave with every function callable,
// which the state reward and the checker score.
type End struct {
	Entry string
	Calls []string
	Exact bool
	env   *Env
}

// State returns the instances' state (Env.State): a fresh copy, made only
// for a reader that scores it.
func (e *End) State() *Dict { return e.env.State() }

// EndState implements envs.StateSession: an *End, or nil for a session
// that could serve no call.
func (s *Session) EndState() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.env == nil {
		return nil
	}
	return &End{Entry: s.entry.ID, Calls: slices.Clone(s.calls), Exact: !s.refused, env: s.env}
}

// Calls returns every call the session executed, in order, in the BFCL
// call syntax (Call.String), failed ones included.
func (s *Session) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// StepCalls returns the call strings of one tool block as Check wants
// them (each call in the BFCL call syntax, executable by Env.Execute), or
// nil when the block does not parse.
func StepCalls(input string) []string {
	cs, err := ParseCalls(input)
	if err != nil {
		return nil
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

// emptyBlock reports a block without a call: blank, or an empty list.
func emptyBlock(input string) bool {
	t := strings.TrimSpace(input)
	if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	return t == ""
}

func errorResult(msg string) envs.Result {
	return envs.Result{Status: envs.StatusError, Output: "error: " + msg, Error: msg}
}
