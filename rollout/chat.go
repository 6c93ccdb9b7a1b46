package rollout

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
)

// Chat renders a rollout's turns with a checkpoint's chat template, the
// one `artist serve` renders the same conversation with: the prompt is
// the template's rendering of an optional system message and the task's
// question as the user message, with the generation prompt; a tool result
// is a tool message and a later user turn a user message, each appended
// as what the template writes after the assistant's text
// (chat.Template.Continuation), so the trajectory's earlier ids are never
// re-rendered or re-tokenized.
type Chat struct {
	Template *chat.Template
	// System is the system message; empty sends none, and the template
	// writes its own default (Qwen2.5: "You are Qwen, ...").
	System string
	// Tools are the function schemas passed to the template (its tools
	// variable), as the chat API passes them; nil passes none.
	Tools []json.RawMessage
	// Adapter, when set, adds each task's tools as the family presents
	// them to a chat-completions server (ChatAdapter.Start), so the
	// template sees the function schemas a served model would; the
	// messages stay the engine's.
	Adapter ChatAdapter
}

func (c *Chat) opts() chat.Options { return chat.Options{Tools: c.Tools} }

// TaskTools returns the schemas the template sees for task: Tools, then
// the Adapter's tools of the task's first turn.
func (c *Chat) TaskTools(task envs.Task) ([]json.RawMessage, error) {
	if c.Adapter == nil {
		return c.Tools, nil
	}
	_, tools, err := c.Adapter.Start(task)
	if err != nil {
		return nil, fmt.Errorf("rollout: task %q: tools: %w", task.ID, err)
	}
	out := slices.Clone(c.Tools)
	for _, t := range tools {
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("rollout: task %q: tool %s: %w", task.ID, t.Function.Name, err)
		}
		out = append(out, raw)
	}
	if out == nil {
		out = []json.RawMessage{}
	}
	return out, nil
}

// withTools is c with the schemas of one task.
func (c *Chat) withTools(tools []json.RawMessage) *Chat {
	d := *c
	d.Tools, d.Adapter = tools, nil
	return &d
}

// Messages returns the first messages of a conversation on question user.
func (c *Chat) Messages(user string) []chat.Message {
	var msgs []chat.Message
	if c.System != "" {
		msgs = append(msgs, chat.Message{Role: "system", Content: c.System})
	}
	return append(msgs, chat.Message{Role: "user", Content: user})
}

// Prompt renders the first messages on question user with the generation
// prompt: the text the policy continues.
func (c *Chat) Prompt(user string) (string, error) {
	opts := c.opts()
	opts.AddGenerationPrompt = true
	return c.Template.Render(c.Messages(user), opts)
}

// ToolTurn is what follows the assistant's text of a turn that ended in a
// tool call: the end of the turn, the tool message holding result and the
// next assistant turn opened.
func (c *Chat) ToolTurn(result string) (string, error) {
	return c.Template.Continuation([]chat.Message{{Role: "tool", Content: result}}, c.opts())
}

// UserTurn is what follows the assistant's text of a turn when the user
// says msg next.
func (c *Chat) UserTurn(msg string) (string, error) {
	return c.Template.Continuation([]chat.Message{{Role: "user", Content: msg}}, c.opts())
}

// Render renders a whole conversation without the generation prompt, for
// comparing with the text of a trajectory's ids.
func (c *Chat) Render(msgs []chat.Message) (string, error) {
	return c.Template.Render(msgs, c.opts())
}

// specialLike finds the marker tokens templates write: <|name|>, as
// ChatML's and Llama 3's turn markers are.
var specialLike = regexp.MustCompile(`<\|[A-Za-z0-9_]+\|>`)

// Check reports, before any rollout, what would otherwise fail mid-run:
// a template that does not render, has no generation prompt
// (chat.Template.CheckGeneration), or writes a special token (one of the
// tokenizer_config.json's, or a <|name|> marker) that tok does not encode
// as one token. Errors name the template's file.
func (c *Chat) Check(tok Tokenizer) error {
	if c.Template == nil {
		return fmt.Errorf("rollout: Chat has no template")
	}
	if err := c.Template.CheckGeneration(c.opts()); err != nil {
		return fmt.Errorf("rollout: %w", err)
	}
	text, err := c.Prompt("What is 2+3?")
	if err != nil {
		return fmt.Errorf("rollout: %w", err)
	}
	for _, turn := range []func(string) (string, error){c.ToolTurn, c.UserTurn} {
		s, err := turn("5")
		if err != nil {
			return fmt.Errorf("rollout: %w", err)
		}
		text += s
	}
	sp := c.Template.SpecialTokens()
	marks := specialLike.FindAllString(text, -1)
	for _, s := range append([]string{sp.BOS, sp.EOS}, sp.Additional...) {
		if s != "" && !slices.Contains(marks, s) && strings.Contains(text, s) {
			marks = append(marks, s)
		}
	}
	for _, m := range marks {
		if ids := tok.Encode(m); len(ids) != 1 || tok.Decode(ids) != m {
			return fmt.Errorf("rollout: chat template of %s writes %q, which the tokenizer encodes as %d tokens, not one: use the tokenizer that ships with the template (the checkpoint's tokenizer.json), or a template written for this tokenizer", c.Template.Origin(), m, len(ids))
		}
	}
	return nil
}
