package rollout

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

// Remote rolls out a policy served behind an OpenAI-compatible completions
// endpoint (POST /v1/completions: vLLM, llama.cpp server, ollama, artist
// serve) with the engine's agent loop, working on text: the server's
// tokens are not known. It is an Engine whose generator (a Completer)
// sends each segment's prompt as text and whose tokens are pieces of the
// text the server returns (textTokens): as many as the completion tokens
// the server reports, so the response budget counts the server's tokens.
//
// Each request sends the prompt and the response so far, with the
// closing code and answer tags as stop sequences, so the tool result
// always comes from Tool, never from the model. At a closing code tag the
// tag is appended (servers leave the stop string out of the text) and the
// loop runs the code after the segment's last opening code tag and
// appends the result block exactly as the engine writes it. In the art
// style of Format the only stop sequence is the newline: each request
// ends at the end of a line, and the loop reads the line as the engine
// does.
//
// The trajectories have Task, Group, Response, Calls, Turns, Replies and
// Stop filled; their token fields stay empty. Run returns the completion
// tokens each trajectory used instead.
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
	// counts the completion tokens the server reports; a tool result or
	// user reply is measured in tokens of Tokenizer (or, with no
	// Tokenizer, 4 bytes a token) and cut in the middle around
	// TruncationMark.
	Config Config
	// Tokenizer, optional, is the server's tokenizer: tool results are
	// measured with it for truncation, and a response ended by EOS gets
	// the EOS token's text, both as the engine does.
	Tokenizer Tokenizer
	// Prompt renders a task; nil means PromptText.
	Prompt PromptFunc
	// UserTurn renders a later user message of a multi-turn task (or a
	// user's reply), as Engine.UserTurn does, or fails on it: Run then
	// returns the error naming the task, as for a prompt that fails to
	// render. nil means UserTurnText; TextTurn adapts a renderer that
	// cannot fail.
	UserTurn func(msg string) (string, error)
	// Parallel bounds the trajectories in flight, and so the requests
	// (default 8).
	Parallel int
}

// Run samples k trajectories per task, grouped contiguously as Engine.Run
// groups them, and returns with them the completion tokens of each.
// Trajectory g of tasks[j] samples from the streams of StreamsFrom(rng)
// as the engine's do: request n of a trajectory sends
// SegmentSeed(its stream, n) as its seed, so a seed fixes the requests
// (rng may be nil at temperature 0). At most Parallel trajectories are in
// flight; Run stops at the first fatal error (a request refused, or
// retried in vain, or ctx ended): it starts no more trajectories, cancels
// those in flight and returns that error.
func (r *Remote) Run(ctx context.Context, tasks []envs.Task, k int, rng *rand.Rand) ([]*Trajectory, []int, error) {
	if r.Tool == nil && r.Config.MaxToolCalls > 0 {
		return nil, nil, errors.New("rollout: Remote.Tool is nil: set a tool or max_tool_calls: 0")
	}
	if rng == nil && r.Config.Temperature != 0 {
		panic("rollout: Remote.Run needs a seeded *rand.Rand unless temperature is 0")
	}
	comp := &textCompleter{r: r, tok: newTextTokens(r.Tokenizer),
		client: &openai.Client{URL: r.URL, HTTP: r.Client, Timeout: r.Timeout, Retries: r.Retries}}
	e := &Engine{Tokenizer: comp.tok, Tool: r.Tool, Format: r.Format, Config: r.Config, Prompt: r.Prompt,
		Completer: comp, Parallel: r.Parallel, turnErr: r.UserTurn}
	trajs, err := runText(ctx, e, tasks, k, rng)
	if err != nil {
		return nil, nil, err
	}
	return trajs, comp.used, nil
}

// runText runs e, an engine over a server's text (Remote, RemoteChat), on
// k trajectories per task (at most e.Parallel at once, 8 when 0) and
// empties the trajectories' token fields: their tokens are pieces of
// text, not the server's.
func runText(ctx context.Context, e *Engine, tasks []envs.Task, k int, rng *rand.Rand) ([]*Trajectory, error) {
	e.Config.GroupSize = k
	if e.Parallel <= 0 {
		e.Parallel = 8
	}
	trajs, err := e.RunStreams(ctx, tasks, StreamsFrom(rng))
	for _, t := range trajs {
		t.Tokens, t.Kinds, t.Mask, t.LogProbs, t.NucleusLogProbs, t.PromptLen = nil, nil, nil, nil, nil, 0
	}
	return trajs, err
}

// textCompleter is Remote's generator: a segment's prompt goes to the
// server as text, and the completion comes back as pieces of text
// (textTokens), as many as the completion tokens the server reports
// (the stop string the server left out appended to the last, EOS as its
// own token), each with log-prob 0. Its rows (RowOpener), opened in
// trajectory order, add up each trajectory's completion tokens in used.
type textCompleter struct {
	r      *Remote
	client *openai.Client
	tok    *textTokens

	mu   sync.Mutex
	used []int
}

// Complete sends one request outside any row.
func (c *textCompleter) Complete(ctx context.Context, req SegmentRequest) (Completion, error) {
	comp, _, err := c.complete(ctx, req)
	return comp, err
}

// OpenRow returns the completer of the next trajectory.
func (c *textCompleter) OpenRow(int) (Completer, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.used = append(c.used, 0)
	return textRow{c, len(c.used) - 1}, func() {}
}

// textRow is the completer of trajectory i.
type textRow struct {
	c *textCompleter
	i int
}

func (t textRow) Complete(ctx context.Context, req SegmentRequest) (Completion, error) {
	comp, n, err := t.c.complete(ctx, req)
	t.c.mu.Lock()
	t.c.used[t.i] += n
	t.c.mu.Unlock()
	return comp, err
}

// complete sends req and returns its completion and the completion
// tokens the server reported.
func (c *textCompleter) complete(ctx context.Context, req SegmentRequest) (Completion, int, error) {
	cfg := req.Config
	text, stop, n, err := c.r.complete(ctx, c.client, openai.CompletionRequest{
		Model: c.r.Model, Prompt: openai.Text(c.tok.Decode(req.Prompt)), MaxTokens: openai.Ptr(cfg.MaxTokens),
		Temperature: openai.Ptr(cfg.Temperature), TopP: openai.Ptr(cfg.TopP), Stop: openai.Stops(cfg.Stop),
		Seed: openai.Ptr(req.Seed), N: openai.Ptr(1),
	}, cfg.Stop)
	if err != nil {
		return Completion{}, 0, err
	}
	out := Completion{Text: text, Length: stop == "", EOS: stop == stopEOS}
	pieces := n
	if out.EOS {
		pieces--
	} else {
		text += stop // "" at the budget
	}
	if text != "" {
		out.Tokens = c.tok.pieces(text, pieces)
	}
	if out.EOS {
		out.Tokens = append(out.Tokens, c.tok.EOS())
	}
	if len(out.Tokens) == 0 {
		out.Tokens = []int{c.tok.id("")} // an empty completion still counts a token
	}
	out.LogProbs = make([]float32, len(out.Tokens))
	return out, n, nil
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
