package atlass

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// ChatSolver is a Solver over an OpenAI-compatible chat-completions
// server: rollout.RemoteChat with the code tool offered as the run_go
// function, and the tools' listing in the system message. Format must be
// the Pipeline's, which reads the answer.
type ChatSolver struct {
	URL, Model, APIKey string
	Client             *http.Client  // nil: a client of its own
	Timeout            time.Duration // per request; 0: openai.DefaultTimeout
	Retries            int           // as rollout.RemoteChat's
	// Config holds the budgets and sampling (GroupSize is ignored);
	// SolverConfig gives the defaults.
	Config rollout.Config
	Format format.Format
	Seed   int64 // the sampling seed at a temperature above 0
}

// SolverConfig returns the solver's default budgets: 2048 response
// tokens, 8 calls, results up to 512 tokens, greedy decoding.
func SolverConfig() rollout.Config {
	c := rollout.DefaultConfig()
	c.GroupSize, c.MaxResponseTokens, c.MaxToolCalls, c.MaxResultTokens, c.Temperature = 1, 2048, 8, 512, 0
	return c
}

var _ Solver = (*ChatSolver)(nil)

// Prompt implements Solver: the system message, which lists the tools.
func (s *ChatSolver) Prompt(_ envs.Task, tools []toollib.Tool) string {
	return render(solverSystem, map[string]any{"Listing": toollib.Listing(tools), "Open": format.Open(s.Format.Answer), "Close": format.Close(s.Format.Answer)})
}

// Solve implements Solver.
func (s *ChatSolver) Solve(ctx context.Context, task envs.Task, tools []toollib.Tool, tool envs.Tool) (*rollout.Trajectory, error) {
	system := s.Prompt(task, tools)
	rc := &rollout.RemoteChat{URL: s.URL, Model: s.Model, APIKey: s.APIKey, Client: s.Client, Timeout: s.Timeout, Retries: s.Retries,
		Tool: tool, Format: s.Format, Config: s.Config, Chat: codeChat{system: system}, Parallel: 1}
	trajs, _, err := rc.Run(ctx, []envs.Task{task}, 1, rand.New(rand.NewSource(s.Seed)))
	if err != nil {
		return nil, fmt.Errorf("atlass: solve: %w", err)
	}
	return trajs[0], nil
}

// codeChat offers the code tool as the function run_go.
type codeChat struct{ system string }

var runGo = openai.Tool{Type: "function", Function: openai.Function{
	Name:        "run_go",
	Description: "Run a Go snippet (statements and function declarations; fmt, math, strconv and strings imported) and return what it prints.",
	Parameters:  json.RawMessage(`{"type": "object", "properties": {"code": {"type": "string", "description": "the Go snippet"}}, "required": ["code"]}`),
}}

func (c codeChat) Start(_ context.Context, t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
	return []openai.ChatMessage{message("system", c.system), message("user", t.Prompt)}, []openai.Tool{runGo}, nil
}

func (codeChat) Turn(t envs.Task, k int) (openai.ChatMessage, []openai.Tool, error) {
	return message("user", t.Turns[k-1]), nil, nil
}

func (codeChat) Input(call openai.FunctionCall) (string, error) {
	var args struct {
		Code *string `json:"code"`
	}
	if call.Name != runGo.Function.Name {
		return "", fmt.Errorf("there is no function %q: call run_go with {\"code\": \"...\"}", call.Name)
	}
	if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args.Code == nil {
		return "", fmt.Errorf("run_go needs {\"code\": \"...\"}, got %.200q", call.Arguments)
	}
	return *args.Code, nil
}
