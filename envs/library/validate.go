package library

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
)

// Tools is the tool registry a library is checked against: each tool
// kind a step may name, and the tool that runs its calls.
type Tools map[string]envs.Tool

// Problem is one demonstration that does not hold: its id and line, the
// step (1-based; 0 for the demonstration as a whole) and why.
type Problem struct {
	ID   string
	Line int
	Step int
	Why  string
}

// ValidationError lists every problem Validate found.
type ValidationError struct {
	Path     string
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "library: %s: %d demonstration step(s) do not hold:", e.Path, len(e.Problems))
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  %s:%d: %s step %d: %s", e.Path, p.Line, p.ID, p.Step, p.Why)
	}
	return b.String()
}

// Validate re-runs every recorded call of lib with the tool its step
// names and returns a *ValidationError listing each step whose tool the
// registry lacks or whose recorded result differs from the output the
// tool returns now (both texts shown), or nil when every step holds. A SessionTool gets one
// session per demonstration, opened with its input as the task, so later
// calls see what earlier ones left, as in a rollout. Only ctx ending
// stops it early.
func Validate(ctx context.Context, lib *Library, tools Tools) error {
	var probs []Problem
	for _, d := range lib.Demos {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("library: validate: %w", err)
		}
		probs = append(probs, validateDemo(ctx, d, tools)...)
	}
	if len(probs) > 0 {
		return &ValidationError{Path: lib.Path, Problems: probs}
	}
	return nil
}

func validateDemo(ctx context.Context, d Demo, tools Tools) []Problem {
	var probs []Problem
	sessions := map[string]envs.ToolSession{}
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()
	for i, s := range d.Steps {
		if !s.Calls() {
			continue
		}
		tool, ok := tools[s.Tool]
		if !ok {
			probs = append(probs, Problem{d.ID, d.Line, i + 1, fmt.Sprintf("tool %q is not in the registry (have: %s): fix the step's tool or remove the step", s.Tool, kinds(tools))})
			continue
		}
		if st, ok := tool.(envs.SessionTool); ok {
			if sessions[s.Tool] == nil {
				sessions[s.Tool] = st.OpenSession(envs.Task{ID: d.ID, Prompt: d.Input, Answer: d.Answer})
			}
			tool = sessions[s.Tool]
		}
		res := tool.Call(ctx, s.Call)
		if res.Output != s.Result {
			probs = append(probs, Problem{d.ID, d.Line, i + 1, fmt.Sprintf("recorded result differs from what %s returns now (status %s):\n    want %q\n    got  %q", s.Tool, res.Status, s.Result, res.Output)})
		}
	}
	return probs
}

func kinds(tools Tools) string {
	var out []string
	for k := range tools {
		out = append(out, k)
	}
	if len(out) == 0 {
		return "none"
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
