package atlass

import (
	"context"
	"go/scanner"
	"go/token"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/rollout"
)

// preludeTool runs each snippet with the source of the approved tools
// before it, less any tool the snippet declares itself (a redeclared
// function would not compile); a whole program, which cannot take
// declarations before its package clause, runs unchanged.
type preludeTool struct {
	inner envs.Tool
	tools []toollib.Tool
}

var _ envs.SessionTool = (*preludeTool)(nil)

func (t *preludeTool) Call(ctx context.Context, input string) envs.Result {
	return t.inner.Call(ctx, withPrelude(t.tools, input))
}

// OpenSession opens a session of the inner tool when it has sessions.
func (t *preludeTool) OpenSession(task envs.Task) envs.ToolSession {
	if st, ok := t.inner.(envs.SessionTool); ok {
		return &preludeSession{inner: st.OpenSession(task), tools: t.tools}
	}
	return &preludeSession{inner: nopSession{t.inner}, tools: t.tools}
}

type preludeSession struct {
	inner envs.ToolSession
	tools []toollib.Tool
}

func (s *preludeSession) Call(ctx context.Context, input string) envs.Result {
	return s.inner.Call(ctx, withPrelude(s.tools, input))
}

func (s *preludeSession) Close() error { return s.inner.Close() }

type nopSession struct{ envs.Tool }

func (nopSession) Close() error { return nil }

func withPrelude(tools []toollib.Tool, input string) string {
	program, own := shape(input)
	if program {
		return input
	}
	var keep []toollib.Tool
	for _, t := range tools {
		if !own[t.Name] {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		return input
	}
	return toollib.Prelude(keep) + "\n\n" + input
}

// shape reads Go source as the sandbox tells a program from a snippet:
// program is whether its first token is the package keyword; declared
// holds the names of the functions it declares at the top level.
func shape(src string) (program bool, declared map[string]bool) {
	declared = map[string]bool{}
	depth, prev, first := 0, token.ILLEGAL, true
	scan(src, func(tok token.Token, lit string) {
		switch tok {
		case token.PACKAGE:
			program = program || first
		case token.LBRACE, token.LPAREN, token.LBRACK:
			depth++
		case token.RBRACE, token.RPAREN, token.RBRACK:
			depth = max(depth-1, 0)
		case token.IDENT:
			if prev == token.FUNC && depth == 0 {
				declared[lit] = true
			}
		}
		prev, first = tok, false
	})
	return program, declared
}

// called returns the ids of the tools that the calls of traj name: an
// identifier of the tool's name followed by "(" in a call's input.
func called(traj *rollout.Trajectory, ids []int64, tools []toollib.Tool) []int64 {
	names := map[string]bool{}
	for _, c := range traj.Calls {
		ident := ""
		scan(c.Input, func(tok token.Token, lit string) {
			if tok == token.LPAREN && ident != "" {
				names[ident] = true
			}
			ident = ""
			if tok == token.IDENT {
				ident = lit
			}
		})
	}
	var out []int64
	for i, t := range tools {
		if names[t.Name] {
			out = append(out, ids[i])
		}
	}
	return out
}

// scan calls visit with each token of src, comments skipped, up to EOF
// or the first token the scanner cannot read past.
func scan(src string, visit func(tok token.Token, lit string)) {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return
		}
		visit(tok, lit)
	}
}
