package rollout

import (
	"context"
	"encoding/json"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout/format"
)

// wholeText feeds a script the question line as its prompt and the rest of
// the text as its response, however the text was split into feeds.
func wholeText(next nextFunc) nextFunc {
	return func(row int, prompt, resp string) string {
		full := prompt + resp
		i := strings.Index(full, "\n") + 1
		return next(row, full[:i], full[i:])
	}
}

// eosText is a tokenizer whose EOS token decodes to visible text.
type eosText struct{ *charTok }

func (t eosText) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		if id == eosID {
			b.WriteString("<eos>")
		} else {
			b.WriteString(t.charTok.Decode([]int{id}))
		}
	}
	return b.String()
}

// completionServer serves p through Complete on an OpenAI-style
// completions endpoint, re-encoding every prompt.
func completionServer(t *testing.T, p Policy, tok Tokenizer) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.CompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/completions" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var prompt string
		json.Unmarshal(req.Prompt, &prompt)
		stops, _ := openai.ParseStop(req.Stop)
		cfg := CompleteConfig{MaxTokens: *req.MaxTokens, Temperature: *req.Temperature, TopP: *req.TopP, Stop: stops}
		c, err := Complete(r.Context(), p, tok, tok.Encode(prompt), cfg, rand.New(rand.NewSource(*req.Seed)))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		choice := map[string]any{"text": c.Text, "finish_reason": "stop", "stop_reason": nil}
		if c.Length {
			choice["finish_reason"] = "length"
		}
		if c.Stop != "" {
			choice["stop_reason"] = c.Stop
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{choice},
			"usage":   map[string]int{"completion_tokens": len(c.Tokens)},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRemoteMatchesEngine rolls the same scripted policy out with the
// token-level engine and through HTTP with the text-level loop, greedily,
// and requires the same responses, calls, stop reasons and token counts.
func TestRemoteMatchesEngine(t *testing.T) {
	call := "<think>add</think><code>fmt.Println({prompt})</code>"
	cases := []struct {
		name string
		next nextFunc
		edit func(*Config)
		stop StopReason
	}{
		{"call then answer", turns(call, "<answer>{out}</answer>"), nil, StopAnswer},
		{"failed call", turns("<code>oops</code>", "<answer>{out}</answer>"), nil, StopAnswer},
		{"budget runs out", turns("<think>" + strings.Repeat("la ", 40)), budget(20), StopLength},
		{"call on the last budgeted token", turns("<code>fmt.Println({prompt})</code>", "<answer>{out}</answer>"), budget(19), StopLength},
		{"too many calls", turns(call, call), func(c *Config) { c.MaxToolCalls = 1 }, StopMaxTurns},
		{"eos", turns("<think>done</think>"), nil, StopEOS},
	}
	tasks := []envs.Task{{ID: "a", Prompt: "2+3"}, {ID: "b", Prompt: "4+5"}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := taggedTok()
			e, p := setup(tok, wholeText(c.next), 50, calc, func(cfg *Config) {
				cfg.Temperature = 0
				if c.edit != nil {
					c.edit(cfg)
				}
			})
			e.Tokenizer = eosText{tok}
			local, err := e.Run(context.Background(), tasks, nil)
			if err != nil {
				t.Fatal(err)
			}
			srv := completionServer(t, p, tok)
			rem := &Remote{URL: srv.URL, Model: "script", Tool: calc, Format: e.Format, Config: e.Config, Tokenizer: e.Tokenizer, Parallel: 3}
			got, used, err := rem.Run(context.Background(), tasks, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range local {
				g := got[i]
				if g.Response != want.Response || g.Stop != want.Stop || !reflect.DeepEqual(g.Calls, want.Calls) ||
					!reflect.DeepEqual(g.Task, want.Task) || g.Group != want.Group || used[i] != want.ModelTokens() {
					t.Errorf("trajectory %d:\n remote %q %s %d tokens %+v\n engine %q %s %d tokens %+v",
						i, g.Response, g.Stop, used[i], g.Calls, want.Response, want.Stop, want.ModelTokens(), want.Calls)
				}
				if want.Stop != c.stop {
					t.Errorf("trajectory %d stopped with %s, want %s", i, want.Stop, c.stop)
				}
			}
		})
	}
}

func TestRemoteStopOf(t *testing.T) {
	r := &Remote{Format: format.DefaultFormat()}
	stops := []string{"</code>", "</answer>"}
	cases := []struct {
		name, text, finish, reason, want string
	}{
		{"length", "<code>x", "length", "", ""},
		{"named stop string", "x", "stop", `"</answer>"`, "</answer>"},
		{"null reason is eos", "<code>x", "stop", "null", stopEOS},
		{"token id reason is eos", "<code>x", "stop", "151643", stopEOS},
		{"unclosed code block", "<think>a</think><code>x", "stop", "", "</code>"},
		{"unclosed answer block", "<answer>4", "stop", "", "</answer>"},
		{"closed blocks mean eos", "<code>x</code><answer>4</answer>", "stop", "", stopEOS},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			choice := openai.Choice{Text: c.text, FinishReason: c.finish, StopReason: json.RawMessage(c.reason)}
			if got := r.stopOf(choice, stops); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestTextTokens: a text is cut into as many pieces as the server's
// tokenizer gives it tokens (one per 4 bytes without one), never inside
// a rune, and the pieces decode back to it; a result cut to a budget of
// such tokens keeps a head and a tail around the mark.
func TestTextTokens(t *testing.T) {
	cases := []struct {
		name   string
		base   Tokenizer
		text   string
		pieces int
	}{
		{"4 bytes a token", nil, "0123456789abcdefXYZ", 5},
		{"runes kept whole", nil, "héllo wörld ✓", 5},
		{"fewer runes than tokens", nil, "✓✓✓✓", 3},
		{"the server's tokens", taggedTok(), "<code>ab</code>", 4},
		{"empty", nil, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := newTextTokens(c.base)
			ids := tok.Encode(c.text)
			if len(ids) != c.pieces || tok.Decode(ids) != c.text {
				t.Fatalf("%q: %d pieces decoding to %q, want %d and the text", c.text, len(ids), tok.Decode(ids), c.pieces)
			}
			for _, id := range ids {
				if p := tok.Decode([]int{id}); p == "" || !utf8.ValidString(p) && utf8.ValidString(c.text) {
					t.Errorf("piece %q: empty or cut inside a rune", p)
				}
			}
		})
	}
	tok := newTextTokens(nil)
	mark := tok.Encode(TruncationMark)
	got, cut := fitResult(tok.Encode("0123456789abcdefXYZ"), 4, mark)
	if want := "0123456" + TruncationMark + "fXYZ"; !cut || tok.Decode(got) != want {
		t.Errorf("cut to 4 tokens: %q (cut %v), want %q", tok.Decode(got), cut, want)
	}
	if eos := newTextTokens(eosText{taggedTok()}); eos.Decode([]int{eos.EOS()}) != "<eos>" {
		t.Error("EOS does not decode to the server tokenizer's EOS text")
	}
}

func TestRemoteServerError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "model not loaded", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	cfg := DefaultConfig()
	rem := &Remote{URL: srv.URL + "/v1/completions", Tool: calc, Format: format.DefaultFormat(), Config: cfg}
	_, _, err := rem.Run(context.Background(), []envs.Task{{ID: "a", Prompt: "q"}}, 2, rand.New(rand.NewSource(1)))
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "model not loaded") {
		t.Fatalf("got %v, want the server's status and message", err)
	}
}

func TestFirstStop(t *testing.T) {
	cases := []struct {
		text  string
		from  int
		at    int
		which string
	}{
		{"a</code>b</answer>", 0, 1, "</code>"},
		{"a</answer></code>", 0, 1, "</answer>"},
		{"a</code>", 2, -1, ""},
		{"plain", 0, -1, ""},
	}
	for _, c := range cases {
		at, which := firstStop(c.text, c.from, []string{"", "</code>", "</answer>"})
		if at != c.at || which != c.which {
			t.Errorf("firstStop(%q, %d) = %d, %q; want %d, %q", c.text, c.from, at, which, c.at, c.which)
		}
	}
}
