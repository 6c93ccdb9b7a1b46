package toollib

import (
	"context"
	"regexp"
	"sync/atomic"

	"github.com/artist-rl/artist/envs"
)

// Augment wraps a code tool with a library. Each trajectory's session
// retrieves Search(task.Prompt, K) once, when it opens, and every snippet
// it runs gets their Prelude prepended, less any tool whose name the
// snippet declares itself (a redeclared function would not compile);
// programs that start with a package clause run unchanged. With Grow, after
// a call that returns StatusOK, each tool Harvest finds in the input that
// is not yet in the library is verified in Inner and added; Grown counts
// them, and the owner of Lib saves it. Augment is safe for concurrent use
// once its fields are set.
//
// The prelude is sent with every call; a stateful sandbox session accepts
// the repeated declarations.
type Augment struct {
	Inner envs.Tool // the sandbox; an envs.SessionTool opens its sessions per trajectory
	Lib   *Library
	K     int  // tools retrieved per task; 0 retrieves none
	Grow  bool // add the documented functions of successful calls to Lib

	grown atomic.Int64
}

var _ envs.SessionTool = (*Augment)(nil)

// Call runs input in Inner as is (there is no task to retrieve for), then
// grows the library when Grow is set.
func (a *Augment) Call(ctx context.Context, input string) envs.Result {
	r := a.Inner.Call(ctx, input)
	a.grow(ctx, input, r)
	return r
}

// OpenSession retrieves the tools of task and opens a session of Inner
// when it is an envs.SessionTool.
func (a *Augment) OpenSession(task envs.Task) envs.ToolSession {
	s := &session{a: a, tools: a.Retrieved(task)}
	if st, ok := a.Inner.(envs.SessionTool); ok {
		s.inner = st.OpenSession(task)
	} else {
		s.inner = nopCloser{a.Inner}
	}
	return s
}

// Retrieved returns the tools a session of task gets, Search(task.Prompt,
// K), so that the prompt can list the same tools.
func (a *Augment) Retrieved(task envs.Task) []Tool {
	if a.Lib == nil || a.K <= 0 {
		return nil
	}
	return a.Lib.Search(task.Prompt, a.K)
}

// Grown returns how many tools the calls have added to the library.
func (a *Augment) Grown() int { return int(a.grown.Load()) }

// grow adds the new, passing tools of a successful input.
func (a *Augment) grow(ctx context.Context, input string, r envs.Result) {
	if !a.Grow || a.Lib == nil || r.Status != envs.StatusOK {
		return
	}
	for _, t := range Harvest(input) {
		if !a.Lib.Has(t.Name) && a.Lib.Add(ctx, a.Inner, t) == nil {
			a.grown.Add(1)
		}
	}
}

// session is the Augment of one trajectory.
type session struct {
	a     *Augment
	inner envs.ToolSession
	tools []Tool
}

// Call runs input with the prelude of the session's tools.
func (s *session) Call(ctx context.Context, input string) envs.Result {
	r := s.inner.Call(ctx, withPrelude(s.tools, input))
	s.a.grow(ctx, input, r)
	return r
}

// Close closes the inner session.
func (s *session) Close() error { return s.inner.Close() }

// declared matches a top-level-looking function declaration and captures
// its name.
var declared = regexp.MustCompile(`(?m)^\s*func\s+([\pL_][\pL\pN_]*)\s*[\[(]`)

// withPrelude prepends the prelude of tools that input does not declare
// itself; a program is returned unchanged.
func withPrelude(tools []Tool, input string) string {
	if len(tools) == 0 || hasPackageClause(input) {
		return input
	}
	own := map[string]bool{}
	for _, m := range declared.FindAllStringSubmatch(input, -1) {
		own[m[1]] = true
	}
	var keep []Tool
	for _, t := range tools {
		if !own[t.Name] {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		return input
	}
	return Prelude(keep) + "\n\n" + input
}

// nopCloser makes a Tool a ToolSession.
type nopCloser struct{ envs.Tool }

func (nopCloser) Close() error { return nil }
