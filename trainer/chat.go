package trainer

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// chatAdapted is what a family (or its set) implements to say how its
// tasks go to a chat-completions server; its tools reach the template.
type chatAdapted interface {
	ChatAdapter() rollout.ChatAdapter
}

// OpenChat returns the renderer of prompt.template chat, or nil for
// plain: the chat template of the checkpoint or tokenizer folder dir
// (chat.Load: chat_template.jinja, else tokenizer_config.json's
// chat_template, else Qwen2.5's own), the same template `artist serve`
// renders with, with p.System as the system message and, for a family
// that presents its tasks to chat servers (a ChatAdapter on fam or set),
// each task's function schemas as the template's tools. dir "" (no
// tokenizer folder) means Qwen2.5's template.
func OpenChat(p PromptConfig, dir string, fam family.Family, set family.Set) (*rollout.Chat, error) {
	if p.Template != "chat" {
		return nil, nil
	}
	tmpl := chat.Fallback(chat.SpecialTokens{EOS: "<|im_end|>", PAD: "<|endoftext|>"})
	if dir != "" {
		var err error
		if tmpl, err = chat.Load(dir); err != nil {
			return nil, fmt.Errorf("trainer: prompt.template chat: %w", err)
		}
	}
	c := &rollout.Chat{Template: tmpl, System: p.System}
	for _, x := range []any{fam, set} {
		if a, ok := x.(chatAdapted); ok {
			c.Adapter = a.ChatAdapter()
		}
	}
	return c, nil
}

// setupChat opens the run's chat renderer over its tokenizer's folder and
// checks it against the tokenizer, so that a template that does not
// render, has no generation prompt or writes tokens the tokenizer lacks
// fails here, naming its file.
func (r *Run) setupChat() error {
	dir := ""
	if r.Cfg.Tokenizer != "" {
		dir = filepath.Dir(r.Cfg.Tokenizer)
	}
	c, err := OpenChat(r.Cfg.Prompt, dir, r.Family, r.Tasks)
	if err != nil || c == nil {
		return err
	}
	if err := c.Check(r.Tok); err != nil {
		return fmt.Errorf("trainer: prompt.template chat: %w", err)
	}
	r.Chat = c
	return nil
}

// userText is the text a task's prompt holds: the whole prompt the
// policy continues (plain), or the user message the chat template wraps.
func (r *Run) userText(t envs.Task) string {
	if r.Chat != nil {
		return t.Prompt
	}
	return rollout.PromptText(t)
}

// renderPrompt renders a task's prompt as the engine does: promptText,
// or with a chat template the task's opening messages (Chat.Opening: with
// the family's tools and system message) with the generation prompt. A
// template that raises on the task's text is an error naming the task.
func (r *Run) renderPrompt(ctx context.Context, t envs.Task) (string, error) {
	if r.Chat == nil {
		return r.promptText(t), nil
	}
	text, _, _, err := r.Chat.OpeningPrompt(ctx, t, rollout.Plain(r.promptText))
	if err != nil {
		return "", fmt.Errorf("trainer: task %s: prompt.template chat: %w", t.ID, err)
	}
	return text, nil
}

// renderTurn renders a later user message as demonstrations append it
// after the end-of-turn text eos: on its own line (plain), or the chat
// template's continuation after an assistant turn, less eos. turn has
// the signature family.DemoRequest.UserTurn takes, so a template that
// raises on a message's text makes it return "" and keeps the first such
// error for err, which the caller checks once the demonstrations are
// built.
func (r *Run) renderTurn(eos string) (turn func(msg string) string, err func() error) {
	if r.Chat == nil {
		return rollout.UserTurnText, func() error { return nil }
	}
	var mu sync.Mutex
	var first error
	turn = func(msg string) string {
		text, err := r.Chat.UserTurn(msg)
		if err != nil {
			mu.Lock()
			if first == nil {
				first = fmt.Errorf("trainer: user turn %q: prompt.template chat: %w", clip(msg, 60), err)
			}
			mu.Unlock()
			return ""
		}
		return strings.TrimPrefix(text, eos)
	}
	return turn, func() error {
		mu.Lock()
		defer mu.Unlock()
		return first
	}
}

// clip shortens s to at most n bytes for a message, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// noteTemplateDiffers says once per run, in the run log, that the chat
// template renders some conversations other than their ids.
func (r *Run) noteTemplateDiffers(trajs []*rollout.Trajectory) {
	n := 0
	for _, t := range trajs {
		if t.TemplateDiffers {
			n++
		}
	}
	if n == 0 || r.templateNoted {
		return
	}
	r.templateNoted = true
	fmt.Fprintf(r.out, "trainer: note: the chat template of %s renders %d of %d conversations of this batch other than their token ids (it rewrites earlier turns, as Qwen3's drops earlier <think> blocks); training keeps the ids the policy sampled and saw\n",
		r.Chat.Template.Origin(), n, len(trajs))
}

// chatSegment is a demonstration segment's text as the run's engine
// writes it: with the chat template, a tool result block of the run's
// format becomes the template's tool turn, as rollouts append it. A
// template that raises on the result's text is an error.
func (r *Run) chatSegment(s rollout.Segment) (string, error) {
	f := r.Cfg.Format
	if r.Chat == nil || !s.Tool || f.ART() {
		return s.Text, nil
	}
	body, ok := strings.CutPrefix(s.Text, format.Open(f.Output))
	if body, ok2 := strings.CutSuffix(body, format.Close(f.Output)+"\n"); ok && ok2 {
		text, err := r.Chat.ToolTurn(body)
		if err != nil {
			return "", fmt.Errorf("trainer: tool turn: prompt.template chat: %w", err)
		}
		return text, nil
	}
	return s.Text, nil
}

// RemotePrompts returns how a client without the server's tokenizer
// renders prompts and later user turns for prompt.template chat (c from
// OpenChat): the template's prompt of the task's opening
// (Chat.OpeningPrompt), and the template's whole continuation after the
// assistant's text, its end-of-turn included. For plain, they are
// rollout.PromptText and rollout.UserTurnText. A template that raises on
// a user message makes userTurn return an error quoting the message's
// start, which rollout.Remote reports for that message's trajectory.
func RemotePrompts(c *rollout.Chat) (prompt rollout.PromptFunc, userTurn func(string) (string, error)) {
	if c == nil {
		return rollout.Plain(rollout.PromptText), rollout.TextTurn(rollout.UserTurnText)
	}
	prompt = func(ctx context.Context, t envs.Task) (string, error) {
		text, _, _, err := c.OpeningPrompt(ctx, t, nil)
		return text, err
	}
	userTurn = func(msg string) (string, error) {
		text, err := c.UserTurn(msg)
		if err != nil {
			return "", fmt.Errorf("trainer: user turn %q: prompt.template chat: %w", clip(msg, 60), err)
		}
		return text, nil
	}
	return prompt, userTurn
}
