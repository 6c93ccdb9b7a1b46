package atlass

import (
	"context"
	"errors"
	"fmt"
	"math/rand"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// PolicyChat is a Chat over the policy itself, for the phases inside
// training: the conversation rendered as text by Render (for a chat model
// its chat template, ending with the assistant's generation prompt) and
// continued by rollout.Complete. It is not safe for concurrent use when
// RNG is set.
type PolicyChat struct {
	Policy    rollout.Policy
	Tokenizer rollout.Tokenizer
	Render    func(msgs []openai.ChatMessage) (string, error)
	Config    rollout.CompleteConfig // MaxTokens per reply, sampling, stops
	RNG       *rand.Rand             // the sampling source; nil only at temperature 0
}

var _ Chat = (*PolicyChat)(nil)

// Reply implements Chat.
func (c *PolicyChat) Reply(ctx context.Context, msgs []openai.ChatMessage) (string, error) {
	if c.Render == nil || c.Policy == nil || c.Tokenizer == nil {
		return "", errors.New("atlass: PolicyChat needs Policy, Tokenizer and Render")
	}
	text, err := c.Render(msgs)
	if err != nil {
		return "", fmt.Errorf("atlass: render the conversation: %w", err)
	}
	out, err := rollout.Complete(ctx, c.Policy, c.Tokenizer, c.Tokenizer.Encode(text), c.Config, c.RNG)
	if err != nil {
		return "", fmt.Errorf("atlass: policy reply: %w", err)
	}
	return out.Text, nil
}

// EngineSolver is a Solver over the rollout engine: the policy on tokens
// with the loss mask and sampling log-probs recorded, so the trajectory
// it returns can be scored and trained on like any other. Engine holds the
// policy, tokenizer, format and budgets; each Solve runs a copy with Tool
// set to the prelude tool, one trajectory (GroupSize 1) and Prompt from
// Render.
type EngineSolver struct {
	Engine rollout.Engine
	// Render is the prompt of a task whose snippets have tools defined;
	// nil means EnginePrompt.
	Render func(task envs.Task, tools []toollib.Tool, f rollout.Format) string
	RNG    *rand.Rand // the sampling source; nil only at temperature 0
}

var _ Solver = (*EngineSolver)(nil)

// Prompt implements Solver: Render's text.
func (s *EngineSolver) Prompt(task envs.Task, tools []toollib.Tool) string {
	if s.Render == nil {
		return EnginePrompt(task, tools, s.Engine.Format)
	}
	return s.Render(task, tools, s.Engine.Format)
}

// Solve implements Solver.
func (s *EngineSolver) Solve(ctx context.Context, task envs.Task, tools []toollib.Tool, tool envs.Tool) (*rollout.Trajectory, error) {
	e := s.Engine
	e.Tool, e.Config.GroupSize = tool, 1
	e.Prompt = func(t envs.Task) string { return s.Prompt(t, tools) }
	trajs, err := e.Run(ctx, []envs.Task{task}, s.RNG)
	if err != nil {
		return nil, fmt.Errorf("atlass: solve: %w", err)
	}
	return trajs[0], nil
}

// EnginePrompt is the solver's prompt on the rollout engine: how to run
// code and answer in f's tags, the listing of tools, then the task.
func EnginePrompt(task envs.Task, tools []toollib.Tool, f rollout.Format) string {
	return render(enginePrompt, map[string]any{
		"Code": rollout.Open(f.Code), "EndCode": rollout.Close(f.Code), "Output": rollout.Open(f.Output),
		"Answer": rollout.Open(f.Answer), "EndAnswer": rollout.Close(f.Answer), "Listing": toollib.Listing(tools), "Task": task.Prompt,
	})
}
