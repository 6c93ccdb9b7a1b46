package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// script answers every request with text, emitted in pieces cut at cuts.
func script(text string, cuts ...int) genFunc {
	return func(ctx context.Context, req genRequest, emit func(string, []sampled)) (rollout.Completion, error) {
		prev := 0
		for _, at := range append(cuts, len(text)) {
			emit(text[prev:at], []sampled{{id: 1, logp: -0.5}})
			prev = at
		}
		return rollout.Completion{Text: text, Tokens: make([]int, len(cuts)+1), EOS: true}, nil
	}
}

// chatReply is a chat answer reassembled from either form.
type chatReply struct {
	Content   *string
	ToolCalls []openai.ToolCall
	Finish    string
}

// postChat sends a chat request and returns the status and, for 200, the
// reply of choice 0, from the JSON answer or the joined stream.
func postChat(t *testing.T, url string, body map[string]any) (int, chatReply, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	res, err := http.Post(url+openai.ChatPath, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var e openai.ErrorBody
		json.NewDecoder(res.Body).Decode(&e)
		eb, _ := json.Marshal(e)
		return res.StatusCode, chatReply{}, eb
	}
	if body["stream"] != true {
		var out openai.ChatCompletion
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		m := out.Choices[0].Message
		return res.StatusCode, chatReply{m.Content, m.ToolCalls, out.Choices[0].FinishReason}, nil
	}
	chunks := readSSE[openai.ChatChunk](t, res)
	c := joinChat(chunks, 1)[0]
	return res.StatusCode, chatReply{c.Message.Content, c.Message.ToolCalls, c.FinishReason}, nil
}

// readSSE reads a stream of server-sent events up to data: [DONE].
func readSSE[T any](t *testing.T, res *http.Response) []T {
	t.Helper()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var out []T
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("not an event: %q", line)
		}
		if data == "[DONE]" {
			return out
		}
		var c T
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		out = append(out, c)
	}
	t.Fatalf("stream ended without [DONE]: %v", sc.Err())
	return nil
}

var weatherTools = []map[string]any{
	{"type": "function", "function": map[string]any{"name": "get_weather", "description": "Weather of a city",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}},
	{"type": "function", "function": map[string]any{"name": "get_time", "parameters": map[string]any{"type": "object"}}},
}

// TestServeChatToolCalls drives /v1/chat/completions with a scripted
// model whose answer holds two calls, emitted whole and cut at every
// byte: the parsed calls and the streamed deltas reassemble to the same
// calls.
func TestServeChatToolCalls(t *testing.T) {
	text := "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"CET\"}}\n</tool_call>"
	content := "Let me look."
	want := []openai.ToolCall{
		{Type: "function", Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city": "Zürich"}`}},
		{Type: "function", Function: openai.FunctionCall{Name: "get_time", Arguments: `{"tz": "CET"}`}},
	}
	body := map[string]any{"messages": []map[string]any{{"role": "user", "content": "Weather in Zürich?"}}, "tools": weatherTools}
	check := func(t *testing.T, r chatReply) {
		t.Helper()
		ids := map[string]bool{}
		for i := range r.ToolCalls {
			if !strings.HasPrefix(r.ToolCalls[i].ID, "call_") || ids[r.ToolCalls[i].ID] {
				t.Errorf("call %d id %q", i, r.ToolCalls[i].ID)
			}
			ids[r.ToolCalls[i].ID] = true
			r.ToolCalls[i].ID = ""
		}
		if r.Content == nil || *r.Content != content || !reflect.DeepEqual(r.ToolCalls, want) || r.Finish != "tool_calls" {
			t.Errorf("content %v calls %+v finish %q", r.Content, r.ToolCalls, r.Finish)
		}
	}
	for _, stream := range []bool{false, true} {
		body["stream"] = stream
		for at := 0; at <= len(text); at++ {
			srv := httptest.NewServer(scriptedHandler(t, script(text, at)))
			code, r, _ := postChat(t, srv.URL, body)
			srv.Close()
			if code != http.StatusOK {
				t.Fatalf("stream %v cut %d: status %d", stream, at, code)
			}
			check(t, r)
		}
	}
	t.Run("tool_choice none parses no calls", func(t *testing.T) {
		srv := httptest.NewServer(scriptedHandler(t, script(text)))
		defer srv.Close()
		body := map[string]any{"messages": body["messages"], "tools": weatherTools, "tool_choice": "none"}
		_, r, _ := postChat(t, srv.URL, body)
		if r.Content == nil || *r.Content != text || len(r.ToolCalls) != 0 || r.Finish != "stop" {
			t.Errorf("content %v calls %+v finish %q", r.Content, r.ToolCalls, r.Finish)
		}
	})
}

// scriptedHandler is scriptedServer's handler, for tests that start many.
var scriptedBase struct {
	once sync.Once
	s    *Server
}

func scriptedHandler(t *testing.T, gen genFunc) http.Handler {
	t.Helper()
	scriptedBase.once.Do(func() {
		ck, err := checkpoint.Open(tinyCheckpoint(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		scriptedBase.s = New(ck.Model, ck.Tok, "tiny", 1)
	})
	s := New(scriptedBase.s.current().model, scriptedBase.s.tok, "tiny", 1)
	s.gen, s.maxLen = gen, 4096 // the scripted answers need no room; rendered tools do
	return s
}

// TestServeChatNamedTool: a named tool_choice makes the answer start that
// function's call; the model writes only the arguments.
func TestServeChatNamedTool(t *testing.T) {
	var prompt []int
	gen := func(ctx context.Context, req genRequest, emit func(string, []sampled)) (rollout.Completion, error) {
		prompt = req.prompt
		return script(`{"city": "Rome"}}`+"\n</tool_call>")(ctx, req, emit)
	}
	srv := httptest.NewServer(scriptedHandler(t, gen))
	defer srv.Close()
	body := map[string]any{"messages": []map[string]any{{"role": "user", "content": "Rome?"}}, "tools": weatherTools,
		"tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}}
	code, r, _ := postChat(t, srv.URL, body)
	if code != http.StatusOK || len(r.ToolCalls) != 1 || r.ToolCalls[0].Function.Name != "get_weather" || r.ToolCalls[0].Function.Arguments != `{"city": "Rome"}` {
		t.Fatalf("status %d reply %+v", code, r)
	}
	if r.Content != nil {
		t.Errorf("content %q, want null", *r.Content)
	}
	text := scriptedBase.s.tok.Decode(prompt)
	if !strings.HasSuffix(text, "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ") || !strings.Contains(text, `"name": "get_time"`) {
		t.Errorf("prompt %q", text)
	}
}

// TestServeChatRejects: bad requests get 400 with the field named.
func TestServeChatRejects(t *testing.T) {
	srv := httptest.NewServer(scriptedHandler(t, script("hi")))
	defer srv.Close()
	user := []map[string]any{{"role": "user", "content": "hi"}}
	cases := []struct {
		name  string
		body  map[string]any
		code  int
		param string
	}{
		{"no messages", map[string]any{"messages": []any{}}, 400, "messages"},
		{"bad role", map[string]any{"messages": []map[string]any{{"role": "robot", "content": "x"}}}, 400, "messages[0].role"},
		{"bad content", map[string]any{"messages": []map[string]any{{"role": "user", "content": 3}}}, 400, "messages[0].content"},
		{"image part", map[string]any{"messages": []map[string]any{{"role": "user", "content": []map[string]any{{"type": "image_url"}}}}}, 400, "messages[0].content"},
		{"tool without a name", map[string]any{"messages": user, "tools": []map[string]any{{"type": "function", "function": map[string]any{}}}}, 400, "tools[0].function.name"},
		{"other tool type", map[string]any{"messages": user, "tools": []map[string]any{{"type": "retrieval", "function": map[string]any{"name": "f"}}}}, 400, "tools[0].type"},
		{"unknown tool_choice", map[string]any{"messages": user, "tools": weatherTools, "tool_choice": "sometimes"}, 400, "tool_choice"},
		{"named function not among tools", map[string]any{"messages": user, "tools": weatherTools, "tool_choice": map[string]any{"type": "function", "function": map[string]any{"name": "nope"}}}, 400, "tool_choice"},
		{"required without tools", map[string]any{"messages": user, "tool_choice": "required"}, 400, "tool_choice"},
		{"max_tokens 0", map[string]any{"messages": user, "max_tokens": 0}, 400, "max_tokens"},
		{"max_completion_tokens 0", map[string]any{"messages": user, "max_completion_tokens": 0}, 400, "max_completion_tokens"},
		{"temperature", map[string]any{"messages": user, "temperature": -1}, 400, "temperature"},
		{"top_p", map[string]any{"messages": user, "top_p": 2}, 400, "top_p"},
		{"stop", map[string]any{"messages": user, "stop": 5}, 400, "stop"},
		{"n", map[string]any{"messages": user, "n": 0}, 400, "n"},
		{"top_logprobs without logprobs", map[string]any{"messages": user, "top_logprobs": 2}, 400, "top_logprobs"},
		{"prompt past the context", map[string]any{"messages": []map[string]any{{"role": "user", "content": strings.Repeat("9 ", 4000)}}}, 400, "messages"},
		{"tool call outside assistant", map[string]any{"messages": []map[string]any{{"role": "user", "content": "x", "tool_calls": []map[string]any{{"type": "function", "function": map[string]any{"name": "f", "arguments": "{}"}}}}}}, 400, "messages"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, body := postChat(t, srv.URL, c.body)
			var e openai.ErrorBody
			json.Unmarshal(body, &e)
			if code != c.code || e.Error.Param != c.param || e.Error.Code != c.code || e.Error.Type != "invalid_request_error" || e.Error.Message == "" {
				t.Errorf("status %d error %s, want %d about %q", code, body, c.code, c.param)
			}
		})
	}
	t.Run("max-tokens limit", func(t *testing.T) {
		var budget int
		s := scriptedHandler(t, func(ctx context.Context, req genRequest, emit func(string, []sampled)) (rollout.Completion, error) {
			budget = req.cfg.MaxTokens
			return script("x")(ctx, req, emit)
		}).(*Server)
		s.limits.MaxTokens = 8
		lim := httptest.NewServer(s)
		defer lim.Close()
		if code, _, body := postChat(t, lim.URL, map[string]any{"messages": user, "max_tokens": 9}); code != 400 || !strings.Contains(string(body), `"param":"max_tokens"`) {
			t.Errorf("max_tokens 9 over the limit 8: status %d %s", code, body)
		}
		if code, _, _ := postChat(t, lim.URL, map[string]any{"messages": user}); code != 200 || budget != 8 {
			t.Errorf("no max_tokens: status %d, budget %d, want the limit 8", code, budget)
		}
	})
	t.Run("body too large", func(t *testing.T) {
		s := scriptedHandler(t, script("hi")).(*Server)
		s.limits.MaxBody = 100
		big := httptest.NewServer(s)
		defer big.Close()
		if code, _, _ := postChat(t, big.URL, map[string]any{"messages": []map[string]any{{"role": "user", "content": strings.Repeat("x", 200)}}}); code != http.StatusRequestEntityTooLarge {
			t.Errorf("status %d, want 413", code)
		}
	})
}

// TestServeConcurrent: requests in flight are served together; each
// scripted answer waits until all have started.
func TestServeConcurrent(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	gen := func(ctx context.Context, req genRequest, emit func(string, []sampled)) (rollout.Completion, error) {
		started.Done()
		done := make(chan struct{})
		go func() { started.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			return rollout.Completion{}, context.DeadlineExceeded
		}
		return script("ok")(ctx, req, emit)
	}
	srv := httptest.NewServer(scriptedHandler(t, gen))
	defer srv.Close()
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = postChat(t, srv.URL, map[string]any{"messages": []map[string]any{{"role": "user", "content": "hi"}}})
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d: status %d", i, c)
		}
	}
}

// TestServeModels lists the one model.
func TestServeModels(t *testing.T) {
	srv := httptest.NewServer(scriptedHandler(t, script("")))
	defer srv.Close()
	res, err := http.Get(srv.URL + openai.ModelsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out openai.ModelList
	json.NewDecoder(res.Body).Decode(&out)
	if res.StatusCode != 200 || out.Object != "list" || len(out.Data) != 1 || out.Data[0].ID != "tiny" || out.Data[0].MaxModelLen < 1 {
		t.Errorf("status %d, %+v", res.StatusCode, out)
	}
}

// TestServeChatN: n choices, each with its own index and seed, whole and
// streamed.
func TestServeChatN(t *testing.T) {
	gen := func(ctx context.Context, req genRequest, emit func(string, []sampled)) (rollout.Completion, error) {
		return script(fmt.Sprintf("seed %d", req.seed))(ctx, req, emit)
	}
	srv := httptest.NewServer(scriptedHandler(t, gen))
	defer srv.Close()
	body := map[string]any{"messages": []map[string]any{{"role": "user", "content": "hi"}}, "n": 3, "seed": 10}
	var whole openai.ChatCompletion
	if code := postJSON(t, srv.URL+openai.ChatPath, body, &whole); code != 200 || len(whole.Choices) != 3 {
		t.Fatalf("status %d, %+v", code, whole)
	}
	for i, c := range whole.Choices {
		if c.Index != i || *c.Message.Content != fmt.Sprintf("seed %d", 10+i) || c.FinishReason != "stop" {
			t.Errorf("choice %d: %+v", i, c)
		}
	}
	if whole.Usage.CompletionTokens != 3 {
		t.Errorf("usage %+v", whole.Usage)
	}
	body["stream"] = true
	b, _ := json.Marshal(body)
	res, err := http.Post(srv.URL+openai.ChatPath, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got := joinChat(readSSE[openai.ChatChunk](t, res), 3); !reflect.DeepEqual(got, whole.Choices) {
		t.Errorf("streamed %+v, whole %+v", got, whole.Choices)
	}
}
