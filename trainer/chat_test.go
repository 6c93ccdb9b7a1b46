package trainer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// raisingTemplate renders ChatML and raises on a message whose content
// is "boom".
const raisingTemplate = `{%- for m in messages %}{%- if m.content == 'boom' %}{{ raise_exception('no boom here') }}{%- endif %}` +
	`<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor %}{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}`

// TestChatTemplateErrors: a chat template that raises on one task's
// text (its prompt, a later user turn, as demonstrations or a remote
// client render it, a tool result) is an error that says where, not a
// panic; other texts render.
func TestChatTemplateErrors(t *testing.T) {
	tmpl, err := chat.New(raisingTemplate, chat.SpecialTokens{EOS: "<|im_end|>"})
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{Cfg: DefaultConfig(), Chat: &rollout.Chat{Template: tmpl}}
	f := r.Cfg.Format
	ctx := context.Background()
	cases := []struct {
		name   string
		render func(text string) error
		want   string // in the error
	}{
		{"prompt", func(text string) error {
			_, err := r.renderPrompt(ctx, envs.Task{ID: "t7", Prompt: text})
			return err
		}, "task t7"},
		{"user turn", func(text string) error {
			turn, turnErr := r.renderTurn("<|im_end|>")
			if got := turn(text); (got == "") != (text == "boom") {
				t.Errorf("user turn %q rendered %q", text, got)
			}
			return turnErr()
		}, "user turn"},
		{"remote user turn", func(text string) error {
			_, turn := RemotePrompts(r.Chat)
			got, err := turn(text)
			if (got == "") != (text == "boom") {
				t.Errorf("remote user turn %q rendered %q", text, got)
			}
			return err
		}, "user turn"},
		{"tool result", func(text string) error {
			seg := rollout.Segment{Tool: true, Text: format.Open(f.Output) + text + format.Close(f.Output) + "\n"}
			_, err := r.chatSegment(seg)
			return err
		}, "tool turn"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.render("fine"); err != nil {
				t.Fatalf("case %d: %q: %v", i, "fine", err)
			}
			err := c.render("boom")
			var raised *chat.RaiseError
			if !errors.As(err, &raised) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "no boom here") {
				t.Fatalf("case %d: err = %v, want the template's exception, saying %q", i, err, c.want)
			}
		})
	}
}
