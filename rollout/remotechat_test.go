package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

// echoChat presents a task as one user message and one tool, "echo",
// whose input is the call's arguments.
type echoChat struct{}

func (echoChat) Start(_ context.Context, t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
	return []openai.ChatMessage{{Role: "user", Content: openai.Text(t.Prompt)}}, []openai.Tool{{Type: "function", Function: openai.Function{Name: "echo"}}}, nil
}

func (echoChat) Turn(t envs.Task, k int) (openai.ChatMessage, []openai.Tool, error) {
	return openai.ChatMessage{Role: "user", Content: openai.Text(t.Turns[k-1])}, nil, nil
}

func (echoChat) Input(c openai.FunctionCall) (string, error) { return c.Arguments, nil }

type echoTool struct{}

func (echoTool) Call(_ context.Context, input string) envs.Result {
	return envs.Result{Status: envs.StatusOK, Output: "got " + input}
}

// TestRemoteChat: a server that calls the tool until it has seen calls
// results, then answers; a second user turn follows. The transcript,
// calls, turns and stop are the engine's; the call budget stops a server
// that never answers, at the call past it, which stays in the
// transcript, not run, as in Engine.
func TestRemoteChat(t *testing.T) {
	calls := 2 // results the server wants before it answers, per turn
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatRequest
		json.NewDecoder(r.Body).Decode(&req)
		results := 0
		for _, m := range slices.Backward(req.Messages) {
			if m.Role == "user" {
				break
			}
			if m.Role == "tool" {
				results++
			}
		}
		msg := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr("a")}
		if results < calls {
			msg.ToolCalls = []openai.ToolCall{{ID: "c", Type: "function", Function: openai.FunctionCall{Name: "echo", Arguments: `{"n": 1}`}}}
		} else {
			msg.Content = openai.Ptr("<answer>42</answer>")
		}
		json.NewEncoder(w).Encode(openai.ChatCompletion{Choices: []openai.ChatChoice{{Message: msg}}, Usage: openai.Usage{CompletionTokens: 1}})
	}))
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Temperature, cfg.MaxToolCalls = 0, 10
	rc := &RemoteChat{URL: srv.URL, Tool: echoTool{}, Format: format.DefaultFormat(), Config: cfg, Chat: echoChat{}, Parallel: 2}
	task := envs.Task{ID: "t", Prompt: "q", Turns: []string{"more"}}
	trajs, toks, err := rc.Run(context.Background(), []envs.Task{task}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := rc.Format
	call := "a" + format.Open(f.Code) + `{"n": 1}` + format.Close(f.Code) + format.ResultBlock(f, `got {"n": 1}`)
	want := call + call + "<answer>42</answer>" + UserTurnText("more") + call + call + "<answer>42</answer>"
	for i, tr := range trajs {
		if tr.Response != want || len(tr.Calls) != 4 || tr.Turns != 2 || tr.Stop != StopAnswer || toks[i] != 6 || tr.Calls[3].Turn != 1 {
			t.Errorf("trajectory %d: %q calls %d turns %d stop %s tokens %d", i, tr.Response, len(tr.Calls), tr.Turns, tr.Stop, toks[i])
		}
	}
	calls = 1 << 20
	trajs, _, err = rc.Run(context.Background(), []envs.Task{task}, 1, nil)
	if err != nil || trajs[0].Stop != StopMaxTurns || len(trajs[0].Calls) != 10 || !strings.HasSuffix(trajs[0].Response, format.Close(f.Output)+"\na<code>{\"n\": 1}</code>") {
		t.Errorf("call budget: %v, stop %s, %d calls, response ends %q", err, trajs[0].Stop, len(trajs[0].Calls), trajs[0].Response[max(0, len(trajs[0].Response)-30):])
	}
}

// TestCompleteOnToken: OnToken sees every sampled token with the
// log-prob that Completion.LogProbs keeps.
func TestCompleteOnToken(t *testing.T) {
	tok, ct, _ := imEndTok(true)
	p := &scriptPolicy{tok: ct, next: turns("<think>x</think>" + imEnd), peak: sure}
	var ids []int
	var logps []float32
	cfg := CompleteConfig{MaxTokens: 40, TopP: 1, OnToken: func(id int, logp float32, logits []float32) {
		ids, logps = append(ids, id), append(logps, logp)
		if len(logits) == 0 {
			t.Error("no logits")
		}
	}}
	comp, err := Complete(context.Background(), p, tok, ct.Encode("Q\n"), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, comp.Tokens) || !slices.Equal(logps, comp.LogProbs) || len(ids) < 2 || !comp.EOS {
		t.Errorf("seen %v %v, completion %v %v", ids, logps, comp.Tokens, comp.LogProbs)
	}
}

// userChatServer answers a chat request with one echo call of the last
// user message, and, once its result is in, with the content say. It
// records the user messages of the last request.
func userChatServer(t *testing.T, say string, users *[]string) *httptest.Server {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatRequest
		json.NewDecoder(r.Body).Decode(&req)
		var seen []string
		last, called := "", false
		for _, m := range req.Messages {
			switch m.Role {
			case "user":
				last, _ = openai.MessageText(m.Content)
				seen, called = append(seen, last), false
			case "tool":
				called = true
			}
		}
		mu.Lock()
		*users = seen
		mu.Unlock()
		msg := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr(say)}
		if !called {
			msg.Content = nil
			msg.ToolCalls = []openai.ToolCall{{ID: "c", Type: "function", Function: openai.FunctionCall{Name: "echo", Arguments: last}}}
		}
		json.NewEncoder(w).Encode(openai.ChatCompletion{Choices: []openai.ChatChoice{{Message: msg, FinishReason: "stop"}}, Usage: openai.Usage{CompletionTokens: 1}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRemoteChatUserReplies: with an envs.UserTool, each answer without
// calls is said to the trajectory's user, whose reply is the next user
// message, until the user ends the conversation, MaxReplies is reached
// or the budget is spent, as Engine and Remote do; calls after a reply
// run in its turn, and every exchange is recorded.
func TestRemoteChatUserReplies(t *testing.T) {
	cases := []struct {
		name         string
		say          string
		replies, max int
		budget       int
		users        []string // user messages of the last request
		heard        []string
		stop         StopReason
		turns        int
	}{
		{"user ends after two replies", "ok", 2, 5, 100, []string{"q", "u1:ok", "u2:ok"}, []string{"ok", "ok", "ok"}, StopEOS, 3},
		{"answer tags are said", "<answer>x</answer>", 1, 5, 100, []string{"q", "u1:<answer>x</answer>"}, []string{"<answer>x</answer>", "<answer>x</answer>"}, StopAnswer, 2},
		{"max replies ends it", "hi", 9, 1, 100, []string{"q", "u1:hi"}, []string{"hi"}, StopEOS, 2},
		{"budget ends it", "hello", 9, 5, 2, []string{"q"}, nil, StopLength, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var seen []string
			srv := userChatServer(t, c.say, &seen)
			users := &echoUsers{replies: c.replies, max: c.max}
			cfg := DefaultConfig()
			cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResponseTokens = 0, 8, c.budget
			rc := &RemoteChat{URL: srv.URL, Tool: users, Format: format.DefaultFormat(), Config: cfg, Chat: echoChat{}}
			trajs, _, err := rc.Run(context.Background(), []envs.Task{{ID: "c", Prompt: "q"}}, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr := trajs[0]
			if tr.Stop != c.stop || tr.Turns != c.turns || !slices.Equal(seen, c.users) {
				t.Fatalf("stop %s turns %d users %q, want %s %d %q", tr.Stop, tr.Turns, seen, c.stop, c.turns, c.users)
			}
			if len(users.sessions) != 1 || !slices.Equal(users.sessions[0].heard, c.heard) {
				t.Fatalf("user heard %q (%d sessions), want %q", users.sessions[0].heard, len(users.sessions), c.heard)
			}
			if len(tr.Replies) != len(c.heard) {
				t.Fatalf("%d replies recorded, want %d", len(tr.Replies), len(c.heard))
			}
			for k, r := range tr.Replies {
				want := Reply{Said: c.heard[k], Done: k == c.replies}
				if !want.Done {
					want.Message = fmt.Sprintf("u%d:%s", k+1, c.heard[k])
				}
				if r != want {
					t.Errorf("reply %d = %+v, want %+v", k, r, want)
				}
			}
			for k, call := range tr.Calls {
				if want := fmt.Sprintf("%s@%d", c.users[k], k); call.Turn != k || call.Result.Output != want {
					t.Errorf("call %d: turn %d output %q, want turn %d output %q", k, call.Turn, call.Result.Output, k, want)
				}
				if k > 0 && !strings.Contains(tr.Response, UserTurnText(c.users[k])) {
					t.Errorf("response %q lacks user turn %q", tr.Response, c.users[k])
				}
			}
		})
	}
}

// argsChat is echoChat whose Input refuses arguments that are not JSON.
type argsChat struct{ echoChat }

func (argsChat) Input(c openai.FunctionCall) (string, error) {
	if !json.Valid([]byte(c.Arguments)) {
		return "", fmt.Errorf("arguments %q are not JSON", c.Arguments)
	}
	return c.Arguments, nil
}

// countingTool is echoTool counting its calls.
type countingTool struct{ calls atomic.Int32 }

func (c *countingTool) Call(ctx context.Context, input string) envs.Result {
	c.calls.Add(1)
	return echoTool{}.Call(ctx, input)
}

// TestRemoteChatParallelCalls: an answer with several calls is asked for
// once; its calls run in order, each answered by a tool message in that
// order (one whose arguments the adapter cannot read gets the adapter's
// error, the tool not called); closing tags inside calls and content
// are not read as the loop's; text after an answer's closing tag is not
// transcribed.
func TestRemoteChatParallelCalls(t *testing.T) {
	var requests atomic.Int32
	var lastTools []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var req openai.ChatRequest
		json.NewDecoder(r.Body).Decode(&req)
		msg := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr("x</answer>")}
		if req.Messages[len(req.Messages)-1].Role == "user" {
			msg.ToolCalls = []openai.ToolCall{
				{ID: "1", Type: "function", Function: openai.FunctionCall{Name: "echo", Arguments: `{"s": "</code>"}`}},
				{ID: "2", Type: "function", Function: openai.FunctionCall{Name: "echo", Arguments: `{bad`}},
				{ID: "3", Type: "function", Function: openai.FunctionCall{Name: "echo", Arguments: `{"n": 3}`}},
			}
		} else {
			lastTools = nil
			for _, m := range req.Messages {
				if m.Role == "tool" {
					text, _ := openai.MessageText(m.Content)
					lastTools = append(lastTools, m.ToolCallID+"="+text)
				}
			}
			msg.Content = openai.Ptr("<answer>7</answer> and more")
		}
		json.NewEncoder(w).Encode(openai.ChatCompletion{Choices: []openai.ChatChoice{{Message: msg}}, Usage: openai.Usage{CompletionTokens: 3}})
	}))
	defer srv.Close()
	cfg := DefaultConfig()
	cfg.Temperature, cfg.MaxToolCalls = 0, 10
	tool := &countingTool{}
	rc := &RemoteChat{URL: srv.URL, Tool: tool, Format: format.DefaultFormat(), Config: cfg, Chat: argsChat{}}
	trajs, used, err := rc.Run(context.Background(), []envs.Task{{ID: "p", Prompt: "q"}}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, f := trajs[0], rc.Format
	bad := `error: arguments "{bad" are not JSON`
	want := "x< /answer>" + format.Block(f.Code, `{"s": "< /code>"}`) + format.ResultBlock(f, `got {"s": "</code>"}`) +
		format.Block(f.Code, "") + format.ResultBlock(f, bad) +
		format.Block(f.Code, `{"n": 3}`) + format.ResultBlock(f, `got {"n": 3}`) + "<answer>7</answer>"
	if tr.Response != want || tr.Stop != StopAnswer || used[0] != 6 || requests.Load() != 2 {
		t.Fatalf("response %q stop %s tokens %d requests %d, want %q answer 6 2", tr.Response, tr.Stop, used[0], requests.Load(), want)
	}
	wantTools := []string{`1=got {"s": "</code>"}`, "2=" + bad, `3=got {"n": 3}`}
	if !slices.Equal(lastTools, wantTools) || tool.calls.Load() != 2 {
		t.Errorf("tool messages %q after %d tool calls, want %q after 2", lastTools, tool.calls.Load(), wantTools)
	}
	if len(tr.Calls) != 3 || tr.Calls[0].Input != `{"s": "</code>"}` || tr.Calls[1].Result.Status != envs.StatusError {
		t.Errorf("calls %+v: want the first with its own input, the second refused", tr.Calls)
	}
}
