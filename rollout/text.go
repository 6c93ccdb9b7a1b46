package rollout

import (
	"context"
	"strings"

	"github.com/artist-rl/artist/envs"
)

// Marks that Text puts around engine-written spans.
const (
	ToolMarkOpen  = "⟦"
	ToolMarkClose = "⟧"
)

// Text renders a trajectory for reading: the prompt, then the response.
// With markTool, each run of engine-written tokens after the prompt (mask
// 0: a tool result with its output tags) is wrapped in ToolMarkOpen and
// ToolMarkClose, so a reader tells what the policy wrote from what it read.
// Without it, Text is the decoded prompt followed by the response.
func Text(t *Trajectory, tok Tokenizer, markTool bool) string {
	var b strings.Builder
	b.WriteString(tok.Decode(t.Tokens[:t.PromptLen]))
	resp, mask := t.Tokens[t.PromptLen:], t.Mask[t.PromptLen:]
	if !markTool {
		b.WriteString(tok.Decode(resp))
		return b.String()
	}
	for i := 0; i < len(resp); {
		j := i + 1
		for j < len(resp) && mask[j] == mask[i] {
			j++
		}
		if mask[i] == 0 {
			b.WriteString(ToolMarkOpen + tok.Decode(resp[i:j]) + ToolMarkClose)
		} else {
			b.WriteString(tok.Decode(resp[i:j]))
		}
		i = j
	}
	return b.String()
}

// PromptText is the default rendering of a task for the policy: the
// question followed by a newline.
func PromptText(t envs.Task) string { return t.Prompt + "\n" }

// PromptFunc renders a task as the text of its question (Engine.Prompt,
// Remote.Prompt). It stops with ctx's error when ctx ends first, and
// fails only where the rendering reaches beyond the task (demonstrations
// chosen by an embedder, say).
type PromptFunc func(ctx context.Context, t envs.Task) (string, error)

// Plain is a PromptFunc of a rendering that waits on nothing and cannot
// fail.
func Plain(render func(envs.Task) string) PromptFunc {
	return func(_ context.Context, t envs.Task) (string, error) { return render(t), nil }
}

// promptOrText is f, or PromptText where f is nil.
func promptOrText(f PromptFunc) PromptFunc {
	if f != nil {
		return f
	}
	return Plain(PromptText)
}

// UserTurnText is the default rendering of a later user message of a
// multi-turn task: the message on its own line.
func UserTurnText(msg string) string { return "\n" + msg + "\n" }
