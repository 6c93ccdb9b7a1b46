package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestClientChat: Chat reaches the chat endpoint from each form of URL,
// with the API key, and retries a 503 as Complete does.
func TestClientChat(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ChatPath || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		if hits.Add(1) == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		var req ChatRequest
		json.NewDecoder(r.Body).Decode(&req)
		json.NewEncoder(w).Encode(ChatCompletion{Choices: []ChatChoice{{Message: AnswerMessage{Role: "assistant", Content: Ptr(req.Messages[0].Role)}}}})
	}))
	defer srv.Close()
	for i, url := range []string{srv.URL, srv.URL + "/", srv.URL + "/v1", srv.URL + ChatPath, srv.URL + CompletionsPath} {
		hits.Store(0)
		c := &Client{URL: url, APIKey: "k", Backoff: 1}
		out, err := c.Chat(context.Background(), ChatRequest{Messages: []ChatMessage{{Role: "user", Content: Text("hi")}}, Stream: true})
		if err != nil || *out.Choices[0].Message.Content != "user" || hits.Load() != 2 {
			t.Errorf("case %d (%s): %+v, %v after %d requests", i, url, out, err, hits.Load())
		}
	}
}

func TestParseToolChoice(t *testing.T) {
	cases := []struct {
		raw  string
		want ToolChoice
		bad  bool
	}{
		{"", ToolChoice{Mode: "auto"}, false},
		{"null", ToolChoice{Mode: "auto"}, false},
		{`"none"`, ToolChoice{Mode: "none"}, false},
		{`"required"`, ToolChoice{Mode: "required"}, false},
		{`{"type": "function", "function": {"name": "f"}}`, ToolChoice{Mode: "required", Name: "f"}, false},
		{`"always"`, ToolChoice{}, true},
		{`{"type": "function"}`, ToolChoice{}, true},
		{`3`, ToolChoice{}, true},
	}
	for i, c := range cases {
		got, err := ParseToolChoice(json.RawMessage(c.raw))
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("case %d (%s): %+v, %v", i, c.raw, got, err)
		}
	}
}

func TestMessageText(t *testing.T) {
	cases := []struct {
		raw, want string
		bad       bool
	}{
		{`"hi"`, "hi", false},
		{`null`, "", false},
		{`[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]`, "ab", false},
		{`[{"type": "image_url"}]`, "", true},
		{`7`, "", true},
	}
	for i, c := range cases {
		got, err := MessageText(json.RawMessage(c.raw))
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("case %d (%s): %q, %v", i, c.raw, got, err)
		}
	}
}
