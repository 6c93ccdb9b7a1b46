package atlass

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
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
	// MaxLen, when > 0, is the policy's context in tokens: a rendered
	// conversation longer than MaxLen − Config.MaxTokens keeps only its
	// last tokens, so the reply fits (the start of the conversation, the
	// phase's instructions first, is what the policy then does not see).
	// 0 sends the whole conversation.
	MaxLen int
}

var _ Chat = (*PolicyChat)(nil)

// Reply implements Chat.
func (c *PolicyChat) Reply(ctx context.Context, msgs []openai.ChatMessage) (string, error) {
	if c.Policy == nil {
		return "", errors.New("atlass: PolicyChat needs Policy, Tokenizer and Render")
	}
	ids, _, err := c.Prompt(msgs)
	if err != nil {
		return "", err
	}
	out, err := rollout.Complete(ctx, c.Policy, c.Tokenizer, ids, c.Config, c.RNG)
	if err != nil {
		return "", fmt.Errorf("atlass: policy reply: %w", err)
	}
	return out.Text, nil
}

// Prompt returns the tokens that Reply continues for msgs: the rendered
// conversation, encoded, and when longer than MaxLen − Config.MaxTokens
// only its last tokens; cut is how many were dropped from its start. It
// needs Tokenizer and Render, not Policy, so a trainer can encode
// demonstrations of the phases exactly as the policy will see them.
func (c *PolicyChat) Prompt(msgs []openai.ChatMessage) (ids []int, cut int, err error) {
	if c.Render == nil || c.Tokenizer == nil {
		return nil, 0, errors.New("atlass: PolicyChat needs Policy, Tokenizer and Render")
	}
	text, err := c.Render(msgs)
	if err != nil {
		return nil, 0, fmt.Errorf("atlass: render the conversation: %w", err)
	}
	ids = c.Tokenizer.Encode(text)
	if c.MaxLen > 0 {
		keep := c.MaxLen - c.Config.MaxTokens
		if keep < 1 {
			return nil, 0, fmt.Errorf("atlass: PolicyChat: a reply of %d tokens leaves no room in a context of %d: lower Config.MaxTokens", c.Config.MaxTokens, c.MaxLen)
		}
		cut = max(len(ids)-keep, 0)
	}
	return ids[cut:], cut, nil
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
	Render func(task envs.Task, tools []toollib.Tool, f format.Format) string
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
	e.Prompt = func(_ context.Context, t envs.Task) (string, error) { return s.Prompt(t, tools), nil }
	trajs, err := e.Run(ctx, []envs.Task{task}, s.RNG)
	if err != nil {
		return nil, fmt.Errorf("atlass: solve: %w", err)
	}
	return trajs[0], nil
}

// EnginePrompt is the solver's prompt on the rollout engine: how to run
// code and answer in f's tags, the listing of tools, then the task.
func EnginePrompt(task envs.Task, tools []toollib.Tool, f format.Format) string {
	return render(enginePrompt, map[string]any{
		"Code": format.Open(f.Code), "EndCode": format.Close(f.Code), "Output": format.Open(f.Output),
		"Answer": format.Open(f.Answer), "EndAnswer": format.Close(f.Answer), "Listing": toollib.Listing(tools), "Task": task.Prompt,
	})
}

// RenderPlain renders a conversation for a policy without a chat
// template: one "role: text" line per message, then "assistant: ", the
// prefix the policy continues.
func RenderPlain(msgs []openai.ChatMessage) (string, error) {
	var b strings.Builder
	for i, m := range msgs {
		text, err := openai.MessageText(m.Content)
		if err != nil {
			return "", fmt.Errorf("atlass: message %d: %w", i+1, err)
		}
		b.WriteString(m.Role + ": " + text + "\n")
	}
	return b.String() + "assistant: ", nil
}

// WithTools returns code with the source of tools before each snippet it
// runs, as the task solver's tool is: a snippet that declares a function
// of a tool's name keeps its own, and a whole program (one that starts
// with a package clause) runs unchanged. Sessions are those of code when
// it has them. Give it approved tools only (see ApprovedTools).
func WithTools(code envs.Tool, tools []toollib.Tool) envs.Tool {
	return &preludeTool{inner: code, tools: tools}
}
