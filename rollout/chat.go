package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
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

// Opening returns the messages a conversation on task opens with, and c
// with the task's tools and no Adapter, which renders its later turns.
// Without an Adapter they are c.System and the user message. With one,
// the task is presented as the family presents it to a chat-completions
// server (ChatAdapter.Start), so a model trains on what it is served
// with: the functions go to the template as tools and leave the user
// message (BFCL's documentation lines), and a system message of the
// family's (tau-bench's policy) follows c.System after a blank line. user
// renders the user message from the task (nil: task.Prompt); with an
// Adapter it sees the adapter's user message as task.Prompt.
func (c *Chat) Opening(ctx context.Context, task envs.Task, user PromptFunc) ([]chat.Message, *Chat, error) {
	d := *c
	d.Adapter = nil
	system := []string{}
	if c.System != "" {
		system = append(system, c.System)
	}
	if c.Adapter != nil {
		msgs, tools, err := c.Adapter.Start(ctx, task)
		if err != nil {
			return nil, nil, fmt.Errorf("rollout: task %q: %w", task.ID, err)
		}
		for _, m := range msgs {
			text, err := openai.MessageText(m.Content)
			if err != nil {
				return nil, nil, fmt.Errorf("rollout: task %q: %s message: %w", task.ID, m.Role, err)
			}
			switch m.Role {
			case "system":
				system = append(system, text)
			case "user":
				task.Prompt = text
			default:
				return nil, nil, fmt.Errorf("rollout: task %q: the family opens with a %s message; only system and user messages can open a conversation", task.ID, m.Role)
			}
		}
		d.Tools = slices.Clone(c.Tools)
		for _, t := range tools {
			raw, err := json.Marshal(t)
			if err != nil {
				return nil, nil, fmt.Errorf("rollout: task %q: tool %s: %w", task.ID, t.Function.Name, err)
			}
			d.Tools = append(d.Tools, raw)
		}
		if d.Tools == nil {
			d.Tools = []json.RawMessage{}
		}
	}
	text := task.Prompt
	if user != nil {
		var err error
		if text, err = user(ctx, task); err != nil {
			return nil, nil, fmt.Errorf("rollout: task %q: %w", task.ID, err)
		}
	}
	var msgs []chat.Message
	if len(system) > 0 {
		msgs = append(msgs, chat.Message{Role: "system", Content: strings.Join(system, "\n\n")})
	}
	return append(msgs, chat.Message{Role: "user", Content: text}), &d, nil
}

// OpeningPrompt renders Opening's messages with the generation prompt:
// the text the policy continues on task, and the Chat of its later turns.
func (c *Chat) OpeningPrompt(ctx context.Context, task envs.Task, user PromptFunc) (string, []chat.Message, *Chat, error) {
	msgs, d, err := c.Opening(ctx, task, user)
	if err != nil {
		return "", nil, nil, err
	}
	opts := d.opts()
	opts.AddGenerationPrompt = true
	text, err := d.Template.Render(msgs, opts)
	if err != nil {
		return "", nil, nil, fmt.Errorf("rollout: task %q: %w", task.ID, err)
	}
	return text, msgs, d, nil
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
