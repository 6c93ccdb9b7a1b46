package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// chatGen generates with a chat-completions server (-api chat).
type chatGen struct{ *rollout.RemoteChat }

// Generate implements evalbench.Generator.
func (g chatGen) Generate(ctx context.Context, tasks []envs.Task, k int, rng *rand.Rand) ([]evalbench.Rollout, error) {
	trajs, toks, err := g.Run(ctx, tasks, k, rng)
	if err != nil {
		return nil, err
	}
	out := make([]evalbench.Rollout, len(trajs))
	for i, t := range trajs {
		out[i] = evalbench.Rollout{Traj: t, Tokens: toks[i]}
	}
	return out, nil
}

// chatFamily is a task family, or a family's opened set, that says
// itself how its tasks go to a chat server (BFCL: the functions as tools;
// tau-bench: its domain's policy and tools).
type chatFamily interface {
	ChatAdapter() rollout.ChatAdapter
}

// chatAdapter picks how a benchmark's tasks go to a chat server: the
// set's own adapter when it has one, else the family's, else, for tasks
// that run Go or Python code, the code tool offered as a function.
func chatAdapter(b *evalbench.Bench, kind, system string) (rollout.ChatAdapter, error) {
	if cs, ok := b.Set.(chatFamily); ok {
		return cs.ChatAdapter(), nil
	}
	if cf, ok := b.Family.(chatFamily); ok {
		return cf.ChatAdapter(), nil
	}
	switch kind {
	case family.SandboxTool:
		return codeChat{system: system, tool: codeTool}, nil
	case family.PythonTool:
		return codeChat{system: system, tool: pythonTool}, nil
	}
	return nil, fmt.Errorf("artist eval: -api chat does not know how to offer the tools of %s (family %s): use -api completions", b.Name, b.Family.Name())
}

// codeChat offers a code tool as a function, tool: the task's prompt is
// the user message (after the config's system prompt, when it has one),
// and a call's code runs as a code block would.
type codeChat struct {
	system string
	tool   openai.Tool // codeTool or pythonTool
}

// codeTool is the function the Go code tool is offered as.
var codeTool = openai.Tool{Type: "function", Function: openai.Function{
	Name:        "run_go",
	Description: "Run a Go program (package main, standard library only) and return what it prints.",
	Parameters:  json.RawMessage(`{"type": "object", "properties": {"code": {"type": "string", "description": "the complete Go source"}}, "required": ["code"]}`),
}}

// pythonTool is the function the Python code tool is offered as.
var pythonTool = openai.Tool{Type: "function", Function: openai.Function{
	Name:        "run_python",
	Description: "Run a Python 3 program (the standard library, and numpy and sympy where installed) and return what it prints.",
	Parameters:  json.RawMessage(`{"type": "object", "properties": {"code": {"type": "string", "description": "the complete Python source; print the values you need"}}, "required": ["code"]}`),
}}

// Start implements rollout.ChatAdapter.
func (c codeChat) Start(_ context.Context, t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
	msgs := []openai.ChatMessage{{Role: "user", Content: openai.Text(t.Prompt)}}
	if c.system != "" {
		msgs = append([]openai.ChatMessage{{Role: "system", Content: openai.Text(c.system)}}, msgs...)
	}
	return msgs, []openai.Tool{c.tool}, nil
}

// Turn implements rollout.ChatAdapter.
func (codeChat) Turn(t envs.Task, k int) (openai.ChatMessage, []openai.Tool, error) {
	return openai.ChatMessage{Role: "user", Content: openai.Text(t.Turns[k-1])}, nil, nil
}

// Input implements rollout.ChatAdapter: the code argument.
func (codeChat) Input(call openai.FunctionCall) (string, error) {
	var args struct {
		Code *string `json:"code"`
	}
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args.Code == nil {
		return "", fmt.Errorf("%s needs {\"code\": \"...\"}, got %.200q", call.Name, call.Arguments)
	}
	return *args.Code, nil
}

// bearer adds an API key to every request it sends.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}
