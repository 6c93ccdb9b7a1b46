package rollout

// The engine's turns under a chat template (Engine.Chat): the prompt,
// tool turns and user turns rendered by the template and appended as ids.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
)

// promptText renders task as the text the policy continues, and with
// Engine.Chat the conversation's first messages and the Chat with the
// task's tools that renders its later turns.
func (r *runner) promptText(ctx context.Context, task envs.Task) (string, []chat.Message, *Chat, error) {
	if r.e.Chat == nil {
		text, err := promptOrText(r.e.Prompt)(ctx, task)
		if err != nil {
			return "", nil, nil, fmt.Errorf("rollout: task %q: %w", task.ID, err)
		}
		return text, nil, nil, nil
	}
	return r.e.Chat.OpeningPrompt(ctx, task, r.e.Prompt)
}

// renderTurn renders a later user message: UserTurn's text, or with a
// Chat (the row's, with its task's tools) the template's continuation
// after an assistant turn.
func (r *runner) renderTurn(c *Chat, msg string) (string, error) {
	if c == nil {
		text, err := r.userTurn(msg)
		if err != nil {
			return "", fmt.Errorf("rollout: user turn: %w", err)
		}
		return text, nil
	}
	text, err := c.UserTurn(msg)
	if err != nil {
		return "", fmt.Errorf("rollout: %w", err)
	}
	return text, nil
}

// afterStop is a chat continuation less the end-of-turn token the policy
// already wrote: the template's text starts with it (Qwen2.5's
// continuation of a user turn starts with its end-of-turn marker).
func (r *runner) afterStop(w *row, text string) string {
	t := w.traj.Tokens
	if w.chat == nil || len(t) == 0 || !slices.Contains(r.stops, t[len(t)-1]) {
		return text
	}
	return strings.TrimPrefix(text, r.e.Tokenizer.Decode(t[len(t)-1:]))
}

// pushTurn appends ids, written by the engine for a message of role
// (tool or user) with content, and with Engine.Chat records the
// assistant's text before it and the message in the row's conversation,
// then checks that the template renders the conversation as the ids held
// (checkTurn): the error is a drift under template_drift: fail.
func (r *runner) pushTurn(w *row, role string, ids []int, content string) error {
	kind := KindUser
	if role == "tool" {
		kind = KindToolResult
	}
	if w.chat != nil {
		w.msgs = append(w.msgs, chat.Message{Role: "assistant", Content: r.said(w.seg)}, chat.Message{Role: role, Content: content})
	}
	w.traj.Append(ids, kind, nil)
	w.feed = append(w.feed, ids...)
	return r.checkTurn(w)
}

// said is the text of an assistant turn's tokens, the end-of-turn token
// left out.
func (r *runner) said(seg []int) string {
	if n := len(seg); n > 0 && slices.Contains(r.stops, seg[n-1]) {
		seg = seg[:n-1]
	}
	return r.e.Tokenizer.Decode(seg)
}

// chatResult renders a call's result (body, already cut to
// max_result_tokens) as the template's tool turn and encodes it whole, so
// the ids are the tokenization of the template's text. If that encoding
// runs past toolLimit, the body is cut further.
func (r *runner) chatResult(c *Chat, body []int) ([]int, string, error) {
	tok := r.e.Tokenizer
	for keep := len(body); ; keep-- {
		cut := body
		if keep < len(body) {
			cut, _ = fitResult(body, keep, r.mark)
		}
		text := tok.Decode(cut)
		turn, err := c.ToolTurn(text)
		if err != nil {
			return nil, "", fmt.Errorf("rollout: %w", err)
		}
		ids := tok.Encode(turn)
		if len(ids) <= r.toolLimit || keep <= len(r.mark)+2 {
			return ids, text, nil
		}
	}
}

// transcript is a chat row's Response: the conversation after its
// opening in the Format's text, as the plain engine and RemoteChat write
// it: what the policy wrote, each tool result as its result block, each
// later user message as UserTurnText. The template's text between turns
// is left out, so a family's rewards and judges read chat rollouts as
// they read plain ones; the trajectory's ids keep that text.
func (r *runner) transcript(w *row) string {
	f := r.e.Format
	msgs := w.msgs
	for i, m := range msgs {
		if m.Role == "user" {
			msgs = msgs[i+1:] // the opening ends with its first user message
			break
		}
	}
	var b strings.Builder
	calls := 0
	for _, m := range msgs {
		switch m.Role {
		case "tool":
			calls++
			b.WriteString(f.ResultOpen(calls) + m.Content + f.ResultClose())
		case "user":
			b.WriteString(UserTurnText(m.Content))
		default:
			b.WriteString(m.Content)
		}
	}
	b.WriteString(r.said(w.seg))
	return b.String()
}

// fail ends a row whose next turn could not be rendered; Run returns err.
func (w *row) fail(err error) {
	w.err = err
	w.end(StopLength)
}

// checkTemplate sets TemplateDiffers when the template renders the row's
// conversation other than the text of its ids: the ids are kept, and the
// trainer says so in the run log.
func (r *runner) checkTemplate(w *row) error {
	if w.chat == nil {
		return nil
	}
	msgs := w.msgs
	if len(w.seg) > 0 {
		msgs = append(slices.Clone(msgs), chat.Message{Role: "assistant", Content: r.said(w.seg)})
	}
	text, err := w.chat.Render(msgs)
	if err != nil {
		return fmt.Errorf("rollout: %w", err)
	}
	w.traj.TemplateDiffers = !strings.HasPrefix(text, r.e.Tokenizer.Decode(w.traj.Tokens))
	return nil
}
