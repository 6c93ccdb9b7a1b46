package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/artist-rl/artist/envs"
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
// The trajectories have Task, Group, Response, Calls and Stop filled; their
// token fields stay empty, since the server's tokens are not known. Run
// returns the completion tokens each trajectory used instead.
type Remote struct {
	// URL is the server's base address (http://host:port) or the full
	// address of its completions endpoint (ending in /completions).
	URL string
	// Model is sent as the request's model name.
	Model string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Tool runs the code of each call, as Engine.Tool; a SessionTool
	// gets one session per trajectory.
	Tool   envs.Tool
	Format Format
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
	Prompt func(envs.Task) string
	// UserTurn renders a later user message of a multi-turn task, as
	// Engine.UserTurn; nil means UserTurnText.
	UserTurn func(msg string) string
	// Parallel bounds the trajectories in flight (default 8).
	Parallel int
}

// completionRequest is the body of POST /v1/completions.
type completionRequest struct {
	Model       string   `json:"model,omitempty"`
	Prompt      string   `json:"prompt"`
	MaxTokens   int      `json:"max_tokens"`
	Temperature float64  `json:"temperature"`
	TopP        float64  `json:"top_p"`
	Stop        []string `json:"stop,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	N           int      `json:"n,omitempty"`
}

// completionResponse is the part of the answer Remote reads. StopReason
// is vLLM's extension: the stop string matched, or null or a token id
// when the end-of-sequence token ended the text.
type completionResponse struct {
	Choices []struct {
		Text         string          `json:"text"`
		FinishReason string          `json:"finish_reason"`
		StopReason   json.RawMessage `json:"stop_reason"`
	} `json:"choices"`
	Usage struct {
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// Run samples k trajectories per task, grouped contiguously as Engine.Run
// groups them, and returns with them the completion tokens of each. When
// Config.Temperature is not 0 each trajectory draws one seed from rng, in
// order, before any request is sent, and sends seed+turn with its turns,
// so a seed fixes the requests. rng may be nil at temperature 0. Run stops
// at the first request that fails.
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
	n := len(tasks) * k
	trajs, toks, seeds := make([]*Trajectory, n), make([]int, n), make([]int64, n)
	if r.Config.Temperature != 0 {
		for i := range seeds {
			seeds[i] = rng.Int63()
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	par := r.Parallel
	if par <= 0 {
		par = 8
	}
	sem := make(chan struct{}, par)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			t := &Trajectory{Task: tasks[i/k], Group: i / k}
			used, err := r.roll(ctx, t, seeds[i])
			if err != nil {
				once.Do(func() { first = err; cancel() })
			}
			trajs[i], toks[i] = t, used
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, nil, first
	}
	return trajs, toks, nil
}

// roll runs the tool loop of one trajectory and returns the completion
// tokens it used.
func (r *Remote) roll(ctx context.Context, t *Trajectory, seed int64) (int, error) {
	prompt := PromptText
	if r.Prompt != nil {
		prompt = r.Prompt
	}
	head := prompt(t.Task)
	closeCode, closeAnswer := Close(r.Format.Code), Close(r.Format.Answer)
	var resp strings.Builder
	used := 0
	t.Turns = 1
	tool := &trajTool{shared: r.Tool, traj: t}
	defer tool.close()
	for turn := int64(0); ; turn++ {
		s := seed + turn
		req := completionRequest{
			Model: r.Model, Prompt: head + resp.String(), MaxTokens: r.Config.MaxResponseTokens - used,
			Temperature: r.Config.Temperature, TopP: r.Config.TopP, Stop: []string{closeCode, closeAnswer}, Seed: &s, N: 1,
		}
		text, stop, n, err := r.complete(ctx, req)
		if err != nil {
			return used, err
		}
		used += n
		resp.WriteString(text)
		switch stop {
		case closeAnswer:
			resp.WriteString(closeAnswer)
			t.Stop = StopAnswer
		case closeCode:
			resp.WriteString(closeCode)
			if len(t.Calls) >= r.Config.MaxToolCalls {
				t.Stop = StopMaxTurns
				break
			}
			resp.WriteString(r.call(ctx, t, tool.get(), codeAfterOpen(text, Open(r.Format.Code))))
			if used >= r.Config.MaxResponseTokens {
				t.Stop = StopLength
			}
		case stopEOS:
			if r.Tokenizer != nil { // the engine's response holds the EOS token's text
				resp.WriteString(r.Tokenizer.Decode([]int{r.Tokenizer.EOS()}))
			}
			t.Stop = StopEOS
		default:
			t.Stop = StopLength
		}
		if t.Stop == StopAnswer || t.Stop == StopEOS {
			t.Stop = r.endTurn(t, &resp, tool, used)
		}
		if t.Stop != "" {
			t.Response = resp.String()
			return used, nil
		}
	}
}

// endTurn ends the policy's turn as Engine does: the rollout stops with
// t.Stop unless a later user message is left and the budget is not spent;
// then it appends the message, tells the tool session, and returns "" to
// go on.
func (r *Remote) endTurn(t *Trajectory, resp *strings.Builder, tool *trajTool, used int) StopReason {
	switch {
	case t.Turns > len(t.Task.Turns):
		return t.Stop
	case used >= r.Config.MaxResponseTokens:
		return StopLength
	}
	msg := t.Task.Turns[t.Turns-1]
	if r.UserTurn != nil {
		resp.WriteString(r.UserTurn(msg))
	} else {
		resp.WriteString(UserTurnText(msg))
	}
	t.Turns++
	tool.startTurn(t.Turns - 1)
	return ""
}

// trajTool is the tool of one trajectory: its own session of a
// SessionTool, opened at its first call, or the shared tool.
type trajTool struct {
	shared envs.Tool
	traj   *Trajectory
	sess   envs.ToolSession
}

func (b *trajTool) get() envs.Tool {
	st, ok := b.shared.(envs.SessionTool)
	if !ok {
		return b.shared
	}
	if b.sess == nil {
		b.sess = openSession(st, b.traj.Task, b.traj.Turns-1)
	}
	return b.sess
}

// startTurn tells an open session that the conversation reached turn.
func (b *trajTool) startTurn(turn int) {
	if ts, ok := b.sess.(envs.TurnSession); ok {
		ts.StartTurn(turn)
	}
}

func (b *trajTool) close() {
	if b.sess != nil {
		b.sess.Close()
	}
}

// codeAfterOpen is the text after the last opening code tag of a segment,
// or the whole segment.
func codeAfterOpen(seg, open string) string {
	if i := strings.LastIndex(seg, open); i >= 0 {
		return seg[i+len(open):]
	}
	return seg
}

// stopEOS marks a completion ended by the end-of-sequence token.
const stopEOS = "\x00eos"

// complete sends one request and returns the text, what stopped it (a
// stop string, stopEOS, or "" for the token budget) and the completion
// tokens used.
func (r *Remote) complete(ctx context.Context, req completionRequest) (text, stop string, n int, err error) {
	body, err := json.Marshal(req)
	if err != nil {
		return "", "", 0, fmt.Errorf("rollout: remote: %w", err)
	}
	url := strings.TrimSuffix(r.URL, "/")
	if !strings.HasSuffix(url, "/completions") {
		url += "/v1/completions"
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", "", 0, fmt.Errorf("rollout: remote: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(hr)
	if err != nil {
		return "", "", 0, fmt.Errorf("rollout: remote: %w", err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return "", "", 0, fmt.Errorf("rollout: remote: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return "", "", 0, fmt.Errorf("rollout: remote: %s: %s", res.Status, bytes.TrimSpace(data[:min(len(data), 300)]))
	}
	var cr completionResponse
	if err := json.Unmarshal(data, &cr); err != nil || len(cr.Choices) == 0 {
		return "", "", 0, fmt.Errorf("rollout: remote: unreadable answer %q", data[:min(len(data), 300)])
	}
	c := cr.Choices[0]
	return c.Text, r.stopOf(c.Text, c.FinishReason, c.StopReason, req.Stop), cr.Usage.CompletionTokens, nil
}

// stopOf decides what ended a completion. "length" is the budget. For
// "stop", a server that names the matched stop string (stop_reason) is
// believed; otherwise an open code or answer block left unclosed in the
// text means its closing tag stopped it, and anything else is EOS.
func (r *Remote) stopOf(text, finish string, reason json.RawMessage, stops []string) string {
	if finish == "length" {
		return ""
	}
	var named string
	if json.Unmarshal(reason, &named) == nil {
		for _, s := range stops {
			if named == s {
				return s
			}
		}
	}
	if len(reason) > 0 && named == "" {
		return stopEOS // null or a token id
	}
	for _, n := range []string{r.Format.Code, r.Format.Answer} {
		if strings.LastIndex(text, Open(n)) > strings.LastIndex(text, Close(n)) {
			return Close(n)
		}
	}
	return stopEOS
}

// call runs one tool call, records it in t and returns the result block to
// append.
func (r *Remote) call(ctx context.Context, t *Trajectory, tool envs.Tool, code string) string {
	res := callTool(ctx, tool, r.Config.ToolTimeout, code)
	text := strings.ReplaceAll(res.Output, Close(r.Format.Output), "< /"+r.Format.Output+">")
	body, cut := r.fit(text)
	t.Calls = append(t.Calls, Call{Input: code, Result: res, Truncated: cut, Turn: t.Turns - 1})
	return ResultBlock(r.Format, body)
}

// fit cuts a result to MaxResultTokens as Remote documents.
func (r *Remote) fit(text string) (string, bool) {
	limit := r.Config.MaxResultTokens
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

// callTool runs input under timeout; a tool that ignores its deadline is
// abandoned after toolGrace more and recorded as a timeout.
func callTool(ctx context.Context, tool envs.Tool, timeout time.Duration, input string) envs.Result {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ch := make(chan envs.Result, 1)
	go func() { ch <- tool.Call(cctx, input) }()
	grace := time.NewTimer(timeout + toolGrace)
	defer grace.Stop()
	select {
	case res := <-ch:
		return res
	case <-ctx.Done():
		return envs.Result{Status: envs.StatusError, Output: "error: canceled", Error: ctx.Err().Error()}
	case <-grace.C:
		msg := fmt.Sprintf("timed out after %v", timeout)
		return envs.Result{Status: envs.StatusTimeout, Output: "error: " + msg, Error: msg}
	}
}
