package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/artist-rl/artist/openai"
)

// TestServeModelName: a request that names another model is answered 404
// with the served model named, on both generation endpoints; the served
// name and no name at all are answered.
func TestServeModelName(t *testing.T) {
	srv := httptest.NewServer(scriptedHandler(t, script("hi")))
	defer srv.Close()
	cases := []struct {
		name, path, body string
		code             int
	}{
		{"chat, other model", openai.ChatPath, `{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}`, 404},
		{"completions, other model", openai.CompletionsPath, `{"model": "gpt-4o", "prompt": "hi", "max_tokens": 2}`, 404},
		{"chat, served model", openai.ChatPath, `{"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}`, 200},
		{"completions, no model", openai.CompletionsPath, `{"prompt": "hi", "max_tokens": 2}`, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := http.Post(srv.URL+c.path, "application/json", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.code {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.code, body)
			}
			if c.code != 404 {
				return
			}
			var e openai.ErrorBody
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatal(err)
			}
			if e.Error.Type != "not_found_error" || e.Error.Param != "model" || !strings.Contains(e.Error.Message, `"tiny"`) || !strings.Contains(e.Error.Message, `"gpt-4o"`) {
				t.Errorf("error %+v: want not_found_error about model naming gpt-4o and the served tiny", e.Error)
			}
		})
	}
}

// TestServeToolChoiceWithoutTools: tool_choice errors say what was sent.
func TestServeToolChoiceWithoutTools(t *testing.T) {
	srv := httptest.NewServer(scriptedHandler(t, script("hi")))
	defer srv.Close()
	user := []map[string]any{{"role": "user", "content": "hi"}}
	cases := []struct {
		name   string
		choice any
		want   string
	}{
		{"named function", map[string]any{"type": "function", "function": map[string]any{"name": "get_weather"}}, `names the function "get_weather", but the request has no tools`},
		{"required", "required", `"required" needs tools`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, body := postChat(t, srv.URL, map[string]any{"messages": user, "tool_choice": c.choice})
			var e openai.ErrorBody
			json.Unmarshal(body, &e)
			if code != 400 || e.Error.Param != "tool_choice" || !strings.Contains(e.Error.Message, c.want) {
				t.Errorf("status %d error %+v, want 400 saying %q", code, e.Error, c.want)
			}
		})
	}
}
