package toollib

import (
	"context"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/artist-rl/artist/envs"
)

// Augment wraps a code tool with a tool database. Each trajectory's
// session retrieves Search(task.Prompt, K) once, when it opens, from the
// approved tools only, and every snippet it runs gets their Prelude
// prepended, less any tool whose name the snippet declares itself (a
// redeclared function would not compile); programs that start with a
// package clause run unchanged. When the session closes, each retrieved
// tool that one of its snippets called gets one use (MarkUsed).
//
// With Grow, after a call that returns StatusOK, each tool Harvest finds
// in the input whose name the database lacks is verified in Inner and
// added with provenance source "grow", the session's task and Run: as
// pending, so that it runs nowhere but in verification until a person
// approves it, or as approved with AutoApprove, for unattended runs.
// Grown counts them. Augment is safe for concurrent use once its fields
// are set.
//
// The prelude is sent with every call; a stateful sandbox session accepts
// the repeated declarations.
type Augment struct {
	Inner       envs.Tool // the sandbox; an envs.SessionTool opens its sessions per trajectory
	Lib         *DB
	K           int    // tools retrieved per task; 0 retrieves none
	Grow        bool   // add the documented functions of successful calls to Lib
	AutoApprove bool   // grown tools join approved instead of pending
	Run         string // the run that grows tools, for their provenance

	grown atomic.Int64
	mu    sync.Mutex
	err   error // the first database error of a retrieval or a use count
}

var _ envs.SessionTool = (*Augment)(nil)

// Call runs input in Inner as is (there is no task to retrieve for), then
// grows the library when Grow is set.
func (a *Augment) Call(ctx context.Context, input string) envs.Result {
	r := a.Inner.Call(ctx, input)
	a.grow(ctx, "", input, r)
	return r
}

// OpenSession retrieves the tools of task and opens a session of Inner
// when it is an envs.SessionTool.
func (a *Augment) OpenSession(task envs.Task) envs.ToolSession {
	s := &session{a: a, task: task.ID, records: a.retrieve(task), used: map[int64]bool{}}
	for _, r := range s.records {
		s.tools = append(s.tools, r.Tool)
	}
	if st, ok := a.Inner.(envs.SessionTool); ok {
		s.inner = st.OpenSession(task)
	} else {
		s.inner = nopCloser{a.Inner}
	}
	return s
}

// Retrieved returns the tools a session of task gets, the K approved tools
// that best match task.Prompt, so that the prompt can list the same tools.
func (a *Augment) Retrieved(task envs.Task) []Tool {
	var out []Tool
	for _, r := range a.retrieve(task) {
		out = append(out, r.Tool)
	}
	return out
}

func (a *Augment) retrieve(task envs.Task) []Record {
	if a.Lib == nil || a.K <= 0 {
		return nil
	}
	// envs.SessionTool opens sessions without a context: retrieval is
	// bounded by the database, not by a caller.
	recs, err := a.Lib.Search(context.Background(), task.Prompt, a.K)
	a.record(err)
	return recs
}

// Grown returns how many tools the calls have added to the library.
func (a *Augment) Grown() int { return int(a.grown.Load()) }

// Err returns the first error the database gave a retrieval or a use
// count (a session then ran without the tools, or its uses were not
// counted); nil when there was none.
func (a *Augment) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

func (a *Augment) record(err error) {
	if err == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil {
		a.err = err
	}
}

// grow adds the new, passing tools of a successful input.
func (a *Augment) grow(ctx context.Context, task, input string, r envs.Result) {
	if !a.Grow || a.Lib == nil || r.Status != envs.StatusOK {
		return
	}
	state := Pending
	if a.AutoApprove {
		state = Approved
	}
	for _, t := range Harvest(input) {
		if _, err := a.Lib.ByName(ctx, t.Name); err == nil {
			continue
		}
		if _, err := a.Lib.Add(ctx, a.Inner, t, Provenance{Task: task, Run: a.Run, Source: "grow"}, state); err == nil {
			a.grown.Add(1)
		}
	}
}

// session is the Augment of one trajectory.
type session struct {
	a       *Augment
	task    string
	inner   envs.ToolSession
	records []Record
	tools   []Tool
	used    map[int64]bool
}

// Call runs input with the prelude of the session's tools.
func (s *session) Call(ctx context.Context, input string) envs.Result {
	full, kept := withPrelude(s.tools, input)
	for _, i := range kept {
		if callsName(input, s.tools[i].Name) {
			s.used[s.records[i].ID] = true
		}
	}
	r := s.inner.Call(ctx, full)
	s.a.grow(ctx, s.task, input, r)
	return r
}

// Close counts the uses of the session's tools and closes the inner
// session.
func (s *session) Close() error {
	var ids []int64
	for _, r := range s.records {
		if s.used[r.ID] {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) > 0 {
		// The count is recorded even after the rollout's context ended:
		// the calls did run (envs.ToolSession.Close takes no context).
		s.a.record(s.a.Lib.MarkUsed(context.Background(), ids...))
	}
	return s.inner.Close()
}

// declared matches a top-level-looking function declaration and captures
// its name.
var declared = regexp.MustCompile(`(?m)^\s*func\s+([\pL_][\pL\pN_]*)\s*[\[(]`)

// withPrelude prepends the prelude of tools that input does not declare
// itself and returns the indices of those tools; a program is returned
// unchanged.
func withPrelude(tools []Tool, input string) (string, []int) {
	if len(tools) == 0 || hasPackageClause(input) {
		return input, nil
	}
	own := map[string]bool{}
	for _, m := range declared.FindAllStringSubmatch(input, -1) {
		own[m[1]] = true
	}
	var keep []Tool
	var idx []int
	for i, t := range tools {
		if !own[t.Name] {
			keep, idx = append(keep, t), append(idx, i)
		}
	}
	if len(keep) == 0 {
		return input, nil
	}
	return Prelude(keep) + "\n\n" + input, idx
}

// callsName reports whether code holds name followed by "(", as a word.
func callsName(code, name string) bool {
	return regexp.MustCompile(`(^|[^\pL\pN_.])` + regexp.QuoteMeta(name) + `\s*[\[(]`).MatchString(code)
}

// nopCloser makes a Tool a ToolSession.
type nopCloser struct{ envs.Tool }

func (nopCloser) Close() error { return nil }
