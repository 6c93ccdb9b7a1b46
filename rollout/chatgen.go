package rollout

// RemoteChat's generator: the agent loop's requests mapped to a
// chat-completions conversation with native tool calls.

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

// chatCompleter is RemoteChat's Completer. Its rows (RowOpener), opened
// in trajectory order, are the trajectories' conversations: row i is
// trajectory i, of tasks[i/k]. It answers no request outside a row.
type chatCompleter struct {
	r      *RemoteChat
	f      format.Format // r.Format in the tags style
	tok    *textTokens
	client *openai.Client
	tasks  []envs.Task
	k      int

	mu   sync.Mutex
	rows []*chatRow
}

// Complete refuses: RemoteChat's requests go to rows.
func (c *chatCompleter) Complete(context.Context, SegmentRequest) (Completion, error) {
	return Completion{}, fmt.Errorf("rollout: remote chat: a request outside a conversation")
}

// OpenRow opens the next trajectory's conversation.
func (c *chatCompleter) OpenRow(int) (Completer, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &chatRow{c: c, task: c.tasks[len(c.rows)/c.k]}
	c.rows = append(c.rows, w)
	return w, func() {}
}

// chatCall is a tool call of an answer, with its input or the error the
// adapter gave for it.
type chatCall struct {
	call  openai.ToolCall
	input string
	err   error
}

// chatRow is one trajectory's conversation. held is how much of the
// loop's text it has accounted for: each request's prompt extends it by
// what the loop appended (a result block, a user turn) after the text the
// row gave.
type chatRow struct {
	c       *chatCompleter
	task    envs.Task
	msgs    []openai.ChatMessage
	tools   []openai.Tool
	held    int
	pending []chatCall // calls of the last answer not yet given to the loop
	open    *chatCall  // the call given to the loop, its result awaited
	turn    int        // later user turns of the task given
	used    int        // completion tokens the server reported
}

// Complete takes in what the loop appended since the row's last answer,
// then gives the loop the next call of the last answer, or asks the
// server for a new answer.
func (w *chatRow) Complete(ctx context.Context, req SegmentRequest) (Completion, error) {
	text := w.c.tok.Decode(req.Prompt)
	if err := w.takeIn(ctx, text); err != nil {
		return Completion{}, err
	}
	if len(w.pending) > 0 {
		call := w.pending[0]
		w.pending = w.pending[1:]
		return w.give(w.callText(&call), 1, false), nil
	}
	return w.ask(ctx, req)
}

// takeIn adds to the conversation what text holds past held: the first
// messages of the task, a tool result, or a user message.
func (w *chatRow) takeIn(ctx context.Context, text string) error {
	if len(text) < w.held {
		return fmt.Errorf("rollout: remote chat: task %s: the loop's text no longer holds the conversation", w.task.ID)
	}
	added := text[w.held:]
	w.held = len(text)
	switch {
	case w.msgs == nil:
		msgs, tools, err := w.c.r.Chat.Start(ctx, w.task)
		if err != nil {
			return fmt.Errorf("rollout: remote chat: task %s: %w", w.task.ID, err)
		}
		w.msgs, w.tools = msgs, tools
	case w.open != nil:
		body := strings.TrimSuffix(strings.TrimPrefix(added, w.c.f.ResultOpen(1)), w.c.f.ResultClose())
		w.msgs = append(w.msgs, openai.ChatMessage{Role: "tool", ToolCallID: w.open.call.ID, Name: w.open.call.Function.Name, Content: openai.Text(body)})
		w.open = nil
	case added != "":
		return w.userTurn(added)
	}
	return nil
}

// userTurn adds the user message the loop appended as rendered text: a
// user's reply (an envs.UserTool), or the task's next turn as the
// adapter presents it, with the tools it adds.
func (w *chatRow) userTurn(added string) error {
	msg := strings.TrimSuffix(strings.TrimPrefix(added, "\n"), "\n") // UserTurnText
	if _, ok := userTool(w.c.r.Tool); ok {
		w.msgs = append(w.msgs, openai.ChatMessage{Role: "user", Content: openai.Text(msg)})
		return nil
	}
	w.turn++
	m, more, err := w.c.r.Chat.Turn(w.task, w.turn)
	if err != nil {
		return fmt.Errorf("rollout: remote chat: task %s turn %d: %w", w.task.ID, w.turn, err)
	}
	w.msgs, w.tools = append(w.msgs, m), append(w.tools, more...)
	return nil
}

// ask sends the conversation and gives the loop the answer: its content
// and first call, or its content ending the turn. The closing tags the
// loop reads are broken in the text (as in tool results) where the loop
// must not read them: in an answer's calls and the content before them,
// and the closing code tag in content without calls; content without
// calls ends at its first closing answer tag (StopAnswer), as the engine
// ends a turn there, else EOS follows it.
func (w *chatRow) ask(ctx context.Context, req SegmentRequest) (Completion, error) {
	cfg := w.c.r.Config
	out, err := w.c.client.Chat(ctx, openai.ChatRequest{Model: w.c.r.Model, Messages: w.msgs, Tools: w.tools,
		MaxTokens: openai.Ptr(req.Config.MaxTokens), Temperature: openai.Ptr(cfg.Temperature), TopP: openai.Ptr(cfg.TopP),
		Seed: openai.Ptr(req.Seed), N: openai.Ptr(1)})
	if err != nil {
		return Completion{}, fmt.Errorf("rollout: remote chat: %w", err)
	}
	n := out.Usage.CompletionTokens
	w.used += n
	ch := out.Choices[0]
	content := ""
	if ch.Message.Content != nil {
		content = *ch.Message.Content
	}
	w.msgs = append(w.msgs, openai.ChatMessage{Role: "assistant", Content: openai.Text(content), ToolCalls: ch.Message.ToolCalls})
	f := w.c.f
	if calls := ch.Message.ToolCalls; len(calls) > 0 {
		for _, c := range calls {
			in, err := w.c.r.Chat.Input(c.Function)
			w.pending = append(w.pending, chatCall{call: c, input: in, err: err})
		}
		first := w.pending[0]
		w.pending = w.pending[1:]
		return w.give(breakTags(content, f.Code, f.Answer)+w.callText(&first), n-len(w.pending), false), nil
	}
	content = breakTags(content, f.Code)
	if ch.FinishReason == "length" {
		return w.give(content, max(n, req.Config.MaxTokens), false), nil // the budget ends the row
	}
	if i := strings.Index(content, format.Close(f.Answer)); i >= 0 {
		return w.give(content[:i+len(format.Close(f.Answer))], n, false), nil
	}
	return w.give(content, n, true), nil
}

// breakTags breaks every closing tag of the names in text ("</code>"
// becomes "< /code>"), as Format.SafeOutput breaks the output tag.
func breakTags(text string, names ...string) string {
	for _, n := range names {
		text = strings.ReplaceAll(text, format.Close(n), "< /"+n+">")
	}
	return text
}

// callText is a call as the loop reads it, a code block holding its
// input with the closing tags broken ("" when the adapter could not read
// it), and makes it the open call.
func (w *chatRow) callText(c *chatCall) string {
	w.open = c
	f := w.c.f
	return format.Open(f.Code) + breakTags(c.input, f.Code, f.Answer) + format.Close(f.Code)
}

// takeCall gives the open call's own input, and a result in the tool's
// place when the adapter could not read it.
func (w *chatRow) takeCall(code string) (string, envs.Result, bool) {
	if w.open == nil {
		return code, envs.Result{}, false
	}
	if err := w.open.err; err != nil {
		return "", envs.Result{Status: envs.StatusError, Output: "error: " + err.Error(), Error: err.Error()}, true
	}
	return w.open.input, envs.Result{}, false
}

// give is text as n tokens of the loop (at least one; more when text
// needs them, the rest empty), and EOS after them when eos is set; held
// moves past the text.
func (w *chatRow) give(text string, n int, eos bool) Completion {
	tok := w.c.tok
	var ids []int
	if text != "" {
		ids = tok.pieces(text, max(n, 1))
	}
	w.held += len(text)
	for len(ids) < n-btoi(eos) {
		ids = append(ids, tok.id(""))
	}
	if eos {
		ids = append(ids, tok.EOS())
	}
	if len(ids) == 0 {
		ids = []int{tok.id("")}
	}
	return Completion{Tokens: ids, LogProbs: make([]float32, len(ids)), Text: text, EOS: eos}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
