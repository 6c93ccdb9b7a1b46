package rollout

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

// Remote rolls out a policy served behind an OpenAI-compatible completions
// endpoint (POST /v1/completions: vLLM, llama.cpp server, ollama, artist
// serve) with the engine's tool loop, working on text instead of tokens.
//
// Each turn sends the prompt and the response so far, with the closing
// code and answer tags as stop sequences, so the tool result always comes
// from Tool, never from the model. At a closing code tag the client
// appends the tag (servers leave the stop string out of the text), runs
// the code after the segment's last opening code tag, and appends
// ResultBlock(Format, result) exactly as the engine writes it.
//
// In the art style of Format the only stop sequence is the newline: each
// request ends at the end of a line, and the client appends the newline
// and looks at the line, as the engine does. A call line runs its call and
// appends Format.ResultText of the result; an answer line ends the turn;
// any other line goes on with the next request.
//
// The trajectories have Task, Group, Response, Calls and Stop filled; their
// token fields stay empty, since the server's tokens are not known. Run
// returns the completion tokens each trajectory used instead.
type Remote struct {
	// URL is the server's base address (http://host:port) or the full
	// address of its completions endpoint (ending in /completions).
	URL string
	// Model is sent as the request's model name.
	Model string
	// Client sends the requests; nil means a client of its own.
	Client *http.Client
	// Timeout bounds one request, answer included; 0 means
	// openai.DefaultTimeout. A request that times out, or is answered
	// 429 or 5xx, or is lost to a connection error, is sent again with
	// backoff, up to Retries times (0: openai.DefaultRetries; negative:
	// never); any other failure is fatal.
	Timeout time.Duration
	Retries int
	// Tool runs the code of each call, as Engine.Tool; a SessionTool
	// gets one session per trajectory.
	Tool   envs.Tool
	Format format.Format
	// Config sets the budgets and sampling as for Engine, with these
	// differences: GroupSize is ignored (Run takes k); MaxResponseTokens
	// counts the completion tokens the server reports; a result longer
	// than MaxResultTokens tokens of Tokenizer (or, with no Tokenizer,
	// 4 bytes per token) is cut in the middle around TruncationMark.
	Config Config
	// Tokenizer, optional, is the server's tokenizer: tool results are
	// measured with it for truncation, and a response ended by EOS gets
	// the EOS token's text, both as the engine does.
	Tokenizer Tokenizer
	// Prompt renders a task; nil means PromptText.
	Prompt PromptFunc
	// UserTurn renders a later user message of a multi-turn task (or a
	// user's reply), as Engine.UserTurn does, or fails on it: a message it
	// fails on ends that trajectory, and Run returns the error naming the
	// task, as for a prompt that fails to render. nil means UserTurnText;
	// TextTurn adapts a renderer that cannot fail.
	UserTurn func(msg string) (string, error)
	// Parallel bounds the trajectories in flight, and so the requests
	// (default 8).
	Parallel int
}

// Run samples k trajectories per task, grouped contiguously as Engine.Run
// groups them, and returns with them the completion tokens of each. When
// Config.Temperature is not 0 each trajectory draws one seed from rng, in
// order, before any request is sent, and sends seed+turn with its turns,
// so a seed fixes the requests. rng may be nil at temperature 0. At most
// Parallel trajectories are in flight; Run stops at the first fatal
// error (a request refused, or retried in vain, or ctx ended): it starts
// no more trajectories, cancels those in flight and returns that error.
func (r *Remote) Run(ctx context.Context, tasks []envs.Task, k int, rng *rand.Rand) ([]*Trajectory, []int, error) {
	if err := r.Config.Validate(); err != nil {
		return nil, nil, err
	}
	if err := r.Format.Validate(); err != nil {
		return nil, nil, err
	}
	if r.Tool == nil && r.Config.MaxToolCalls > 0 {
		return nil, nil, errors.New("rollout: Remote.Tool is nil: set a tool or max_tool_calls: 0")
	}
	client := &openai.Client{URL: r.URL, HTTP: r.Client, Timeout: r.Timeout, Retries: r.Retries}
	return rollGroups(ctx, tasks, k, r.Parallel, r.Config.Temperature, rng, func(ctx context.Context, t *Trajectory, seed int64) (int, error) {
		return r.roll(ctx, client, t, seed)
	})
}

// roll runs the tool loop of one trajectory and returns the completion
// tokens it used.
func (r *Remote) roll(ctx context.Context, client *openai.Client, t *Trajectory, seed int64) (int, error) {
	head, err := promptOrText(r.Prompt)(ctx, t.Task)
	if err != nil {
		return 0, fmt.Errorf("rollout: task %q: %w", t.Task.ID, err)
	}
	stops := r.Format.StopStrings()
	var resp strings.Builder
	seg := 0 // where the policy's current segment starts in resp
	used := 0
	t.Turns = 1
	loop := newToolLoop(r.Tool, r.Config.ToolTimeout, t)
	defer loop.close()
	for turn := int64(0); ; turn++ {
		req := openai.CompletionRequest{
			Model: r.Model, Prompt: openai.Text(head + resp.String()), MaxTokens: openai.Ptr(r.Config.MaxResponseTokens - used),
			Temperature: openai.Ptr(r.Config.Temperature), TopP: openai.Ptr(r.Config.TopP), Stop: openai.Stops(stops),
			Seed: openai.Ptr(seed + turn), N: openai.Ptr(1),
		}
		text, stop, n, err := r.complete(ctx, client, req, stops)
		if err != nil {
			return used, err
		}
		used += n
		resp.WriteString(text)
		if stop != stopEOS && stop != "" {
			resp.WriteString(stop)
			switch ev, code := r.event(stop, text, resp.String()[seg:]); {
			case ev == format.EventAnswer:
				t.Stop = StopAnswer
			case ev == format.EventCall && len(t.Calls) >= r.Config.MaxToolCalls:
				t.Stop = StopMaxTurns
			case ev == format.EventCall:
				resp.WriteString(r.call(ctx, loop, code, len(t.Calls)+1))
				seg = resp.Len()
				if used >= r.Config.MaxResponseTokens {
					t.Stop = StopLength
				}
			case used >= r.Config.MaxResponseTokens: // an art-style line that asks nothing
				t.Stop = StopLength
			}
		}
		said := resp.String()[seg:]
		switch stop {
		case stopEOS:
			if r.Tokenizer != nil { // the engine's response holds the EOS token's text
				resp.WriteString(r.Tokenizer.Decode([]int{r.Tokenizer.EOS()}))
			}
			t.Stop = StopEOS
		case "":
			t.Stop = StopLength
		}
		if t.Stop == StopAnswer || t.Stop == StopEOS {
			if err := r.nextTurn(ctx, loop, t, said, &resp, used); err != nil {
				t.Response = resp.String()
				return used, err
			}
			seg = resp.Len()
		}
		if t.Stop != "" {
			t.Response = resp.String()
			return used, nil
		}
	}
}

// event says what the stop string stop, which ended a completion whose
// text is text, finished: in the tags style a closing answer tag ends the
// turn and a closing code tag calls the code after the last opening one;
// in the art style the newline ends the last line of segment (the
// policy's text since the last engine-written text), read as the engine
// reads it.
func (r *Remote) event(stop, text, segment string) (format.Event, string) {
	f := r.Format
	if f.ART() {
		return f.LineEvent(segment, len(segment)-len(stop))
	}
	if stop == format.Close(f.Answer) {
		return format.EventAnswer, ""
	}
	return format.EventCall, codeAfterOpen(text, format.Open(f.Code))
}

// users reports whether Tool is an envs.UserTool whose users answer.
func (r *Remote) users() bool { _, ok := userTool(r.Tool); return ok }

// nextTurn follows a turn the policy ended (t.Stop is StopAnswer or
// StopEOS): it appends the next user message, rendered by UserTurn, to
// resp and clears t.Stop, or leaves t.Stop set when the conversation is
// over. The message is the reply of the trajectory's user (an
// envs.UserTool), else the task's next turn. A message UserTurn fails on
// is an error naming the task, t.Stop then StopLength as Engine leaves a
// failed row.
func (r *Remote) nextTurn(ctx context.Context, loop *toolLoop, t *Trajectory, said string, resp *strings.Builder, used int) error {
	if r.users() {
		return r.reply(ctx, loop, t, said, resp, used)
	}
	next, stop := loop.endTurn(t.Stop, used >= r.Config.MaxResponseTokens)
	if t.Stop = stop; stop != "" {
		return nil
	}
	text, err := r.userTurn(t, t.Task.Turns[next])
	if err != nil {
		return err
	}
	resp.WriteString(text)
	return nil
}

// reply asks the trajectory's user for its next message, as Engine does
// at the end of a turn, and appends it to resp; t.Stop is cleared when
// the conversation goes on, StopLength when the budget is spent. A
// message UserTurn fails on is an error, as for nextTurn.
func (r *Remote) reply(ctx context.Context, loop *toolLoop, t *Trajectory, said string, resp *strings.Builder, used int) error {
	if used >= r.Config.MaxResponseTokens {
		t.Stop = StopLength
		return nil
	}
	msg, done := loop.reply(ctx, said)
	if done {
		return nil
	}
	text, err := r.userTurn(t, msg)
	if err != nil {
		return err
	}
	empty, err := r.userTurn(t, "")
	if err != nil {
		return err
	}
	t.Stop = ""
	overhead := len(empty) / 4
	if r.Tokenizer != nil {
		overhead = len(r.Tokenizer.Encode(empty))
	}
	text, _ = r.fitTo(text, replyLimit(r.Config, overhead))
	resp.WriteString(text)
	return nil
}

// userTurn renders a later user message of t as Engine does. On failure
// it sets t.Stop to StopLength and returns the error naming t's task.
func (r *Remote) userTurn(t *Trajectory, msg string) (string, error) {
	if r.UserTurn == nil {
		return UserTurnText(msg), nil
	}
	text, err := r.UserTurn(msg)
	if err != nil {
		t.Stop = StopLength
		return "", fmt.Errorf("rollout: task %q: user turn: %w", t.Task.ID, err)
	}
	return text, nil
}

// TextTurn adapts a user-turn renderer that cannot fail (as
// Engine.UserTurn) to Remote.UserTurn; nil stays nil, which Remote reads
// as UserTurnText.
func TextTurn(render func(msg string) string) func(msg string) (string, error) {
	if render == nil {
		return nil
	}
	return func(msg string) (string, error) { return render(msg), nil }
}

// stopEOS marks a completion ended by the end-of-sequence token.
const stopEOS = "\x00eos"

// complete sends one request and returns the text, what stopped it (a
// stop string, stopEOS, or "" for the token budget) and the completion
// tokens used.
func (r *Remote) complete(ctx context.Context, client *openai.Client, req openai.CompletionRequest, stops []string) (text, stop string, n int, err error) {
	out, err := client.Complete(ctx, req)
	if err != nil {
		return "", "", 0, fmt.Errorf("rollout: remote: %w", err)
	}
	c := out.Choices[0]
	return c.Text, r.stopOf(c, stops), out.Usage.CompletionTokens, nil
}

// stopOf decides what ended a completion. "length" is the budget. For
// "stop", a server that names the matched stop string (stop_reason) is
// believed; otherwise an open code or answer block left unclosed in the
// text means its closing tag stopped it, and anything else is EOS. In the
// art style a stop that a server names as neither string nor token is the
// newline.
func (r *Remote) stopOf(c openai.Choice, stops []string) string {
	text := c.Text
	if c.FinishReason == "length" {
		return ""
	}
	if named, ok := c.StopString(); ok {
		for _, s := range stops {
			if named == s {
				return s
			}
		}
	}
	if c.StoppedByToken() {
		return stopEOS // null or a token id
	}
	if r.Format.ART() {
		return "\n" // the only stop string
	}
	for _, n := range []string{r.Format.Code, r.Format.Answer} {
		if strings.LastIndex(text, format.Open(n)) > strings.LastIndex(text, format.Close(n)) {
			return format.Close(n)
		}
	}
	return stopEOS
}

// call runs the n-th tool call through the trajectory's tool loop,
// records it and returns the result block to append.
func (r *Remote) call(ctx context.Context, loop *toolLoop, code string, n int) string {
	res := loop.call(ctx, code)
	f := r.Format
	body, cut := r.fit(f.ResultBody(n, res.Output))
	loop.record(code, res, cut)
	return f.ResultOpen(n) + body + f.ResultClose()
}

// fit cuts a result to MaxResultTokens as Remote documents.
func (r *Remote) fit(text string) (string, bool) { return r.fitTo(text, r.Config.MaxResultTokens) }

// fitTo cuts text to limit tokens of Tokenizer, or about 4 bytes a token
// without one.
func (r *Remote) fitTo(text string, limit int) (string, bool) {
	if tok := r.Tokenizer; tok != nil {
		mark := tok.Encode(TruncationMark)
		if tok.Decode(mark) != TruncationMark {
			mark = tok.Encode(asciiTruncationMark)
		}
		ids, cut := fitResult(tok.Encode(text), limit, mark)
		if !cut {
			return text, false
		}
		return tok.Decode(ids), true
	}
	rs := []rune(text)
	if len(text) <= 4*limit {
		return text, false
	}
	keep := max(4*limit/2, 1) // runes kept on each side, about the byte budget
	if 2*keep >= len(rs) {
		return text, false
	}
	return string(rs[:keep]) + TruncationMark + string(rs[len(rs)-keep:]), true
}
