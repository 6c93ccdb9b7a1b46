package server

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/openai"
)

// postJSON sends body to url and decodes a 200 answer into out.
func postJSON(t *testing.T, url string, body any, out any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	res, err := http.Post(url, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
	return res.StatusCode
}

// TestServeStreamMatches: with the tiny model, greedy, the streamed
// chunks of both endpoints join to the non-streaming answer.
func TestServeStreamMatches(t *testing.T) {
	srv, _ := tinyServer(t)
	t.Run("completions", func(t *testing.T) {
		req := map[string]any{"prompt": "7 boxes hold 6 coins each. How many coins?\n", "max_tokens": 12, "temperature": 0}
		var whole openai.Completion
		if code := postJSON(t, srv.URL+openai.CompletionsPath, req, &whole); code != 200 {
			t.Fatalf("status %d", code)
		}
		text := whole.Choices[0].Text
		for _, stop := range []string{"", text[3:5]} {
			req["stop"], req["stream"] = stop, false
			var want openai.Completion
			postJSON(t, srv.URL+openai.CompletionsPath, req, &want)
			req["stream"] = true
			req["stream_options"] = map[string]any{"include_usage": true}
			b, _ := json.Marshal(req)
			res, err := http.Post(srv.URL+openai.CompletionsPath, "application/json", strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			chunks := readSSE[openai.CompletionChunk](t, res)
			res.Body.Close()
			got := joinCompletions(chunks, 1)[0]
			if w := want.Choices[0]; got.Text != w.Text || got.FinishReason != w.FinishReason || string(got.StopReason) != string(w.StopReason) {
				t.Errorf("stop %q: stream %+v, whole %+v", stop, got, w)
			}
			if u := chunks[len(chunks)-1].Usage; u == nil || *u != want.Usage {
				t.Errorf("stream usage %v, want %+v", u, want.Usage)
			}
			if len(chunks) < 3 {
				t.Errorf("%d chunks: not streamed", len(chunks))
			}
		}
	})
	t.Run("chat", func(t *testing.T) {
		req := map[string]any{"messages": []map[string]any{{"role": "system", "content": "Be brief."}, {"role": "user", "content": "2+2?"}}, "max_tokens": 10, "temperature": 0}
		_, whole, _ := postChat(t, srv.URL, req)
		req["stream"] = true
		_, streamed, _ := postChat(t, srv.URL, req)
		if whole.Content == nil || !reflect.DeepEqual(whole, streamed) {
			t.Errorf("whole %+v, streamed %+v", whole, streamed)
		}
	})
}

// TestServeTokens: token ids in and out. A prompt of token ids is the
// prompt of its text; return_token_ids and logprobs report each sampled
// token; /tokenize renders messages as chat does and /detokenize inverts
// it.
func TestServeTokens(t *testing.T) {
	srv, tok := tinyServer(t)
	prompt := "q: 3+4\n"
	ids := tok.Encode(prompt)
	var byText, byIDs openai.Completion
	postJSON(t, srv.URL+openai.CompletionsPath, map[string]any{"prompt": prompt, "max_tokens": 6, "temperature": 0, "return_token_ids": true, "logprobs": 2}, &byText)
	postJSON(t, srv.URL+openai.CompletionsPath, map[string]any{"prompt": ids, "max_tokens": 6, "temperature": 0, "return_token_ids": true}, &byIDs)
	a, b := byText.Choices[0], byIDs.Choices[0]
	if a.Text != b.Text || !slices.Equal(a.TokenIDs, b.TokenIDs) || !slices.Equal(byText.PromptTokenIDs, ids) {
		t.Fatalf("text prompt %+v, id prompt %+v", a, b)
	}
	if len(a.TokenIDs) != byText.Usage.CompletionTokens || len(a.TokenLogprobs) != len(a.TokenIDs) || tok.Decode(a.TokenIDs) != a.Text && !tok.IsStop(a.TokenIDs[len(a.TokenIDs)-1]) {
		t.Errorf("token ids %v logprobs %v for %q", a.TokenIDs, a.TokenLogprobs, a.Text)
	}
	if lp := a.Logprobs; lp == nil || strings.Join(lp.Tokens, "") != a.Text || len(lp.TopLogprobs) != len(lp.Tokens) || len(lp.TopLogprobs[0]) != 2 {
		t.Errorf("logprobs %+v", lp)
	} else if greedy := lp.TokenLogprobs[0]; greedy < maxOf(lp.TopLogprobs[0])-1e-4 {
		t.Errorf("greedy token log-prob %v below the best alternative %v", greedy, lp.TopLogprobs[0])
	}

	var tk openai.TokenizeAnswer
	msgs := []map[string]any{{"role": "user", "content": "hi"}}
	if code := postJSON(t, srv.URL+openai.TokenizePath, map[string]any{"messages": msgs}, &tk); code != 200 || tk.Count != len(tk.Tokens) || tk.MaxModelLen != 256 {
		t.Fatalf("tokenize: status %d %+v", code, tk)
	}
	var dt openai.DetokenizeAnswer
	postJSON(t, srv.URL+openai.DetokenizePath, map[string]any{"tokens": tk.Tokens}, &dt)
	if !strings.HasSuffix(dt.Prompt, "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n") {
		t.Errorf("detokenized %q", dt.Prompt)
	}
	postJSON(t, srv.URL+openai.TokenizePath, map[string]any{"prompt": prompt}, &tk)
	if !slices.Equal(tk.Tokens, ids) {
		t.Errorf("tokenize prompt %v, want %v", tk.Tokens, ids)
	}
	if code := postJSON(t, srv.URL+openai.DetokenizePath, map[string]any{"tokens": []int{-1}}, &dt); code != 400 {
		t.Errorf("detokenize of -1: status %d", code)
	}
	t.Run("chat logprobs", func(t *testing.T) {
		var out openai.ChatCompletion
		postJSON(t, srv.URL+openai.ChatPath, map[string]any{"messages": msgs, "max_tokens": 5, "temperature": 0, "logprobs": true, "top_logprobs": 3, "return_token_ids": true}, &out)
		c := out.Choices[0]
		var joined strings.Builder
		for _, e := range c.Logprobs.Content {
			joined.WriteString(e.Token)
			if len(e.TopLogprobs) != 3 {
				t.Errorf("top_logprobs %+v", e.TopLogprobs)
			}
		}
		if c.Message.Content == nil || joined.String() != *c.Message.Content || len(c.TokenIDs) != out.Usage.CompletionTokens || len(out.PromptTokenIDs) != out.Usage.PromptTokens {
			t.Errorf("choice %+v usage %+v", c, out.Usage)
		}
	})
}

func maxOf(m map[string]float64) float64 {
	best := -1e300
	for _, v := range m {
		best = max(best, v)
	}
	return best
}
