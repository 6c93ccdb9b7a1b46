package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/policy"
)

// tinyServer serves the tiny checkpoint in process.
func tinyServer(t *testing.T) (*httptest.Server, *policy.Tokenizer) {
	t.Helper()
	ck, err := checkpoint.Open(tinyCheckpoint(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := ck.Tok
	srv := httptest.NewServer(New(ck.Model, tok, "tiny", 1))
	t.Cleanup(srv.Close)
	return srv, tok
}

// post sends body to path and decodes the answer.
func post(t *testing.T, url, body string) (int, openai.Completion) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out openai.Completion
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
	}
	return res.StatusCode, out
}

// named reports whether the choice's stop_reason is the stop string s.
func named(c openai.Choice, s string) bool {
	got, ok := c.StopString()
	return ok && got == s
}

func TestServeRejects(t *testing.T) {
	srv, _ := tinyServer(t)
	cases := []struct {
		name, path, body string
		code             int
	}{
		{"other path", "/v1/edits", `{"prompt": "a"}`, http.StatusNotFound},
		{"not JSON", "/v1/completions", `{"prompt": `, http.StatusBadRequest},
		{"no prompt", "/v1/completions", `{"max_tokens": 3}`, http.StatusBadRequest},
		{"two prompts", "/v1/completions", `{"prompt": ["a", "b"]}`, http.StatusBadRequest},
		{"n of 0", "/v1/completions", `{"prompt": "a", "n": 0}`, http.StatusBadRequest},
		{"n past the limit", "/v1/completions", `{"prompt": "a", "n": 17}`, http.StatusBadRequest},
		{"token id out of the vocabulary", "/v1/completions", `{"prompt": [1, 99999999]}`, http.StatusBadRequest},
		{"logprobs past 20", "/v1/completions", `{"prompt": "a", "logprobs": 21}`, http.StatusBadRequest},
		{"top_p 0", "/v1/completions", `{"prompt": "a", "top_p": 0}`, http.StatusBadRequest},
		{"stop number", "/v1/completions", `{"prompt": "a", "stop": 3}`, http.StatusBadRequest},
		{"prompt past the context", "/v1/completions", `{"prompt": "` + strings.Repeat("9", 300) + `"}`, http.StatusBadRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if code, _ := post(t, srv.URL+c.path, c.body); code != c.code {
				t.Errorf("status %d, want %d", code, c.code)
			}
		})
	}
	t.Run("GET", func(t *testing.T) {
		res, err := http.Get(srv.URL + "/v1/completions")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("status %d, want 405", res.StatusCode)
		}
	})
}

func TestServeCompletions(t *testing.T) {
	srv, tok := tinyServer(t)
	url := srv.URL + "/v1/completions"
	prompt := "7 boxes hold 6 coins each. How many coins?\n"
	code, full := post(t, url, `{"prompt": "`+strings.ReplaceAll(prompt, "\n", `\n`)+`", "max_tokens": 12, "temperature": 0}`)
	if code != http.StatusOK || len(full.Choices) != 1 {
		t.Fatalf("status %d, %+v", code, full)
	}
	c := full.Choices[0]
	u := full.Usage
	if c.FinishReason != "length" || u.CompletionTokens != 12 || u.PromptTokens != len(tok.Encode(prompt)) || u.TotalTokens != u.PromptTokens+12 {
		t.Fatalf("budget answer %+v %+v", c, u)
	}
	text := c.Text
	if len(text) < 4 {
		t.Fatalf("text %q too short to test stop strings", text)
	}
	t.Run("stop string excluded", func(t *testing.T) {
		stop := text[2:4]
		at := strings.Index(text, stop)
		body, _ := json.Marshal(map[string]any{"prompt": prompt, "max_tokens": 12, "temperature": 0, "stop": []string{"never", stop}})
		code, got := post(t, url, string(body))
		g := got.Choices[0]
		if code != http.StatusOK || g.Text != text[:at] || g.FinishReason != "stop" || !named(g, stop) {
			t.Errorf("stop %q: got %+v, want text %q", stop, g, text[:at])
		}
	})
	t.Run("seeded sampling repeats", func(t *testing.T) {
		body := `{"prompt": "q\n", "max_tokens": 10, "temperature": 1, "seed": 7, "stop": null}`
		_, a := post(t, url, body)
		_, b := post(t, url, body)
		if a.Choices[0].Text != b.Choices[0].Text {
			t.Errorf("same seed, texts %q and %q", a.Choices[0].Text, b.Choices[0].Text)
		}
	})
}

func TestIDCache(t *testing.T) {
	_, tok := tinyServer(t)
	c := newIDCache(2)
	c.put("ab", []int{100, 101})
	c.put("abcd", []int{100, 101, 102})
	cases := []struct {
		prompt string
		want   []int
	}{
		{"abcde", append([]int{100, 101, 102}, tok.Encode("e")...)},
		{"abx", append([]int{100, 101}, tok.Encode("x")...)},
		{"zz", tok.Encode("zz")},
	}
	for _, cs := range cases {
		if got := c.encode(cs.prompt, tok); !slices.Equal(got, cs.want) {
			t.Errorf("encode(%q) = %v, want %v", cs.prompt, got, cs.want)
		}
	}
	c.put("q", []int{7}) // evicts "ab", the oldest
	if got := c.encode("abx", tok); !slices.Equal(got, tok.Encode("abx")) {
		t.Errorf("oldest entry not evicted: %v", got)
	}
}

// TestServeMaxTokensPastContext: a max_tokens past the room the prompt
// leaves is refused with a 400 naming the context length (OpenAI's and
// vLLM's answer), while an unset budget is cut to that room.
func TestServeMaxTokensPastContext(t *testing.T) {
	srv, tok := tinyServer(t)
	prompt := "q\n"
	ctxLen := 256
	room := ctxLen - len(tok.Encode(prompt))
	cases := []struct {
		name      string
		body      string
		code      int
		wantInMsg []string
	}{
		{"max_tokens fills the room", fmt.Sprintf(`{"prompt": "q\n", "max_tokens": %d, "temperature": 0, "stop": ["\n"]}`, room), http.StatusOK, nil},
		{"max_tokens one past the room", fmt.Sprintf(`{"prompt": "q\n", "max_tokens": %d}`, room+1), http.StatusBadRequest,
			[]string{"maximum context length is 256 tokens", fmt.Sprintf("at most %d", room), `"param":"max_tokens"`}},
		{"chat max_tokens past the context", `{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 100000}`, http.StatusBadRequest,
			[]string{"maximum context length is 256 tokens", `"param":"max_tokens"`}},
		{"chat max_completion_tokens past the context", `{"messages": [{"role": "user", "content": "hi"}], "max_completion_tokens": 100000}`, http.StatusBadRequest,
			[]string{"maximum context length is 256 tokens", `"param":"max_completion_tokens"`}},
		{"no max_tokens", `{"prompt": "q\n", "temperature": 0}`, http.StatusOK, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := openai.CompletionsPath
			if strings.Contains(c.body, "messages") {
				path = openai.ChatPath
			}
			res, err := http.Post(srv.URL+path, "application/json", strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.code {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.code, b)
			}
			for _, w := range c.wantInMsg {
				if !strings.Contains(string(b), w) {
					t.Errorf("answer %s does not say %q", b, w)
				}
			}
		})
	}
}
