package chat

import (
	"fmt"
	"strings"
)

// sentinel stands for the content of the assistant message that
// Continuation renders after: text no template rewrites (no whitespace at
// either end, no think tags) and that no conversation holds.
const sentinel = "\u2063artist-turn-end\u2063"

// Continuation returns the text the template writes after the content of
// an assistant message when msgs follow it, with the generation prompt:
// the end of that assistant turn, msgs (tool results, a user turn) and the
// opening of the next assistant turn. For Qwen2.5 and a tool message R it
// is
//
//	<|im_end|>\n<|im_start|>user\n<tool_response>\nR\n</tool_response><|im_end|>\n<|im_start|>assistant\n
//
// It renders a short conversation (a user message, the assistant message,
// then msgs) and returns what follows the assistant's content, as verl and
// TRL compute what a multi-turn rollout appends to its token ids, so a
// trajectory grows by the template's own text without re-rendering (and
// re-tokenizing) its history. opts.AddGenerationPrompt is ignored (always
// on); opts.Tools reach the template as in Render.
func (t *Template) Continuation(msgs []Message, opts Options) (string, error) {
	if len(msgs) == 0 {
		return "", fmt.Errorf("chat: continuation of no messages")
	}
	conv := append([]Message{{Role: "user", Content: "Hi."}, {Role: "assistant", Content: sentinel}}, msgs...)
	opts.AddGenerationPrompt = true
	out, err := t.Render(conv, opts)
	if err != nil {
		return "", err
	}
	if n := strings.Count(out, sentinel); n != 1 {
		return "", fmt.Errorf("chat: %s renders an assistant message's content %d times, want once: the turns between messages cannot be told from it", t.describe(t.mustPick(opts)), n)
	}
	return out[strings.Index(out, sentinel)+len(sentinel):], nil
}

// mustPick is pick for messages: the variant name, or "default".
func (t *Template) mustPick(opts Options) string {
	name, err := t.pick(opts)
	if err != nil {
		return "default"
	}
	return name
}

// CheckGeneration reports an error naming the template when it cannot
// serve a policy: rendering a system and user message fails, or the
// generation prompt adds nothing (the policy would continue the user's
// turn), or Continuation fails for a tool result or a user message.
func (t *Template) CheckGeneration(opts Options) error {
	msgs := []Message{{Role: "system", Content: "You are a helpful assistant."}, {Role: "user", Content: "What is 2+3?"}}
	opts.AddGenerationPrompt = false
	without, err := t.Render(msgs, opts)
	if err != nil {
		return err
	}
	opts.AddGenerationPrompt = true
	with, err := t.Render(msgs, opts)
	if err != nil {
		return err
	}
	if with == without || !strings.HasPrefix(with, without) {
		return fmt.Errorf("chat: %s has no generation prompt: add_generation_prompt does not open an assistant turn after the messages, so the policy would write the user's turn; use a chat template that handles add_generation_prompt", t.describe(t.mustPick(opts)))
	}
	for _, next := range []Message{{Role: "tool", Content: "5"}, {Role: "user", Content: "And 3+4?"}} {
		if _, err := t.Continuation([]Message{next}, opts); err != nil {
			return fmt.Errorf("%w (a %s message after an assistant turn)", err, next.Role)
		}
	}
	return nil
}
