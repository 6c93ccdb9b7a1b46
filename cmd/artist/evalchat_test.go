package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/openai"
)

// groundTruthChat is a chat-completions server that plays the ground
// truth of the BFCL entries it is given with native tool calls: in each
// turn it answers with the turn's calls as tool_calls, then, once their
// results came back as tool messages, with "[ok]"; a turn without calls
// is just "[ok]". It finds the conversation from the user messages and
// the tools offered.
func groundTruthChat(t *testing.T, d *bfcl.Data, entries []bfcl.Entry) *httptest.Server {
	params := map[string][]string{} // parameter names of each function, for positional arguments
	for _, e := range entries {
		for _, class := range e.InvolvedClasses {
			docs, err := bfcl.FunctionDocs(d, class)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range docs {
				params[f.Name] = f.Params
			}
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatRequest
		if r.URL.Path != openai.ChatPath || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var b strings.Builder
		for _, tool := range req.Tools {
			fmt.Fprintf(&b, "%q: %q\n", "name", tool.Function.Name)
		}
		users := 0
		for _, m := range req.Messages {
			if m.Role == "user" {
				text, _ := openai.MessageText(m.Content)
				b.WriteString(text + "\n")
				users++
			}
		}
		e := entryOf(entries, b.String())
		turn := users - 1
		if e == nil || turn >= len(e.GroundTruth) {
			http.Error(w, "unknown conversation", http.StatusBadRequest)
			return
		}
		msg := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr("[ok]")}
		finish := "stop"
		if calls := e.GroundTruth[turn]; len(calls) > 0 && req.Messages[len(req.Messages)-1].Role == "user" {
			msg.Content, finish = nil, "tool_calls"
			for i, c := range calls {
				fc, err := chatCall(c, params)
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: fmt.Sprintf("call_%d", i), Type: "function", Function: fc})
			}
		}
		json.NewEncoder(w).Encode(openai.ChatCompletion{Object: "chat.completion", Choices: []openai.ChatChoice{{Message: msg, FinishReason: finish}},
			Usage: openai.Usage{CompletionTokens: 3}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// chatCall converts a ground-truth call `f('x', b=1)` to a function call
// with JSON arguments, positional ones named by params.
func chatCall(s string, params map[string][]string) (openai.FunctionCall, error) {
	cs, err := bfcl.ParseCalls(s)
	if err != nil || len(cs) != 1 || len(cs[0].Args) > len(params[cs[0].Name]) {
		return openai.FunctionCall{}, fmt.Errorf("ground truth %q is not one call of a documented function", s)
	}
	kwargs := cs[0].Kwargs
	for i, v := range cs[0].Args {
		kwargs = append(kwargs, bfcl.Kwarg{Name: params[cs[0].Name][i], Value: v})
	}
	parts := make([]string, len(kwargs))
	for i, kw := range kwargs {
		v, err := bfcl.PyJSON(kw.Value)
		if err != nil {
			return openai.FunctionCall{}, err
		}
		k, _ := json.Marshal(kw.Name)
		parts[i] = string(k) + ": " + v
	}
	return openai.FunctionCall{Name: cs[0].Name, Arguments: "{" + strings.Join(parts, ", ") + "}"}, nil
}

// TestEvalBFCLChat evaluates through -api chat a server that plays the
// ground truth with native tool calls: every conversation of the four
// categories passes the official checker (fixture; the benchmark too
// when present).
func TestEvalBFCLChat(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    func(t *testing.T) string
		entries map[string]int
	}{
		{"fixture", func(*testing.T) string { return fixtureData },
			map[string]int{"base": 6, "miss_func": 4, "miss_param": 4, "long_context": 4}},
		{"benchmark", func(t *testing.T) string { return filepath.Dir(datadir.Require(t, "bfcl_v3")) },
			map[string]int{"base": 200, "miss_func": 200, "miss_param": 200, "long_context": 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := bfcl.Load(filepath.Join(tc.data(t), "bfcl_v3"))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range bfcl.Categories {
				t.Run(c, func(t *testing.T) {
					srv := groundTruthChat(t, d, mustEntries(t, d, c))
					out := t.TempDir()
					name := bfcl.BenchmarkPrefix + c
					code, _, stderr := runCLI("eval", "-bench", name, "-data", tc.data(t), "-policy", srv.URL+"/v1", "-api", "chat", "-temperature", "0", "-out", out,
						"-set", "rollout.max_tool_calls=40", "-set", "rollout.max_result_tokens=100000", "-set", "rollout.max_response_tokens=100000") // long_context entries make up to 34 calls in a turn
					if code != 0 {
						t.Fatalf("eval: exit %d: %s", code, stderr)
					}
					samples, sums := outputs(t, out)
					if len(samples) != tc.entries[c] {
						t.Fatalf("%d samples, want %d", len(samples), tc.entries[c])
					}
					for _, s := range samples {
						if !s.Correct || s.Rewards["fc_function"] != 0.5 {
							t.Errorf("%s: correct %v verdict %+v rewards %v", s.ID, s.Correct, s.Verdict, s.Rewards)
						}
					}
					if s := sums[name]; s.Pass1 != 1 {
						t.Errorf("summary %+v, want pass@1 1", s)
					}
				})
			}
		})
	}
}

// TestBFCLTool converts a documentation line as BFCL's harness does.
func TestBFCLTool(t *testing.T) {
	line := `{"name": "mv", "description": "Move a file.", "parameters": {"type": "dict", "properties": {"src": {"type": "string", "description": "the type: float"}, "n": {"type": "float"}, "xs": {"type": "tuple", "items": {"type": "any"}}}, "required": ["src"]}, "response": {"type": "dict"}}`
	tool, err := bfcl.ChatTool(line)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type": "object", "properties": {"src": {"type": "string", "description": "the type: float"}, "n": {"type": "number"}, "xs": {"type": "array", "items": {"type": "string"}}}, "required": ["src"]}`
	if tool.Function.Name != "mv" || tool.Function.Description != "Move a file." || string(tool.Function.Parameters) != want {
		t.Errorf("tool %+v\nparameters %s\nwant       %s", tool, tool.Function.Parameters, want)
	}
	if _, err := bfcl.ChatTool("mv(src: str)"); err == nil {
		t.Error("a signature line converted")
	}
}

// TestEvalMathChat: through -api chat, the code tool is offered as the
// function run_go, its result goes back as a tool message, and the
// transcript reads as the completions path's; the API key of
// -api-key-env is sent.
func TestEvalMathChat(t *testing.T) {
	t.Setenv("ARTIST_TEST_KEY", "sekrit")
	var mu sync.Mutex
	var results []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatRequest
		if r.Header.Get("Authorization") != "Bearer sekrit" {
			http.Error(w, `{"error": {"message": "bad key"}}`, http.StatusUnauthorized)
			return
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Tools) != 1 || req.Tools[0].Function.Name != "run_go" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		msg := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr("<think>multiply</think>")}
		finish := "tool_calls"
		if last.Role == "tool" {
			text, _ := openai.MessageText(last.Content)
			mu.Lock()
			results = append(results, text)
			mu.Unlock()
			msg.Content, finish = openai.Ptr("<answer>"+strings.TrimSpace(text)+"</answer>"), "stop"
		} else {
			msg.ToolCalls = []openai.ToolCall{{ID: "call_0", Type: "function", Function: openai.FunctionCall{Name: "run_go", Arguments: `{"code": "fmt.Println(9 * 3)"}`}}}
		}
		json.NewEncoder(w).Encode(openai.ChatCompletion{Choices: []openai.ChatChoice{{Message: msg, FinishReason: finish}}, Usage: openai.Usage{CompletionTokens: 5}})
	}))
	defer srv.Close()
	out := t.TempDir()
	args := []string{"eval", "-bench", "amc23", "-data", "testdata/bench", "-policy", srv.URL, "-api", "chat", "-model", "m", "-temperature", "0", "-out", out, "-concurrency", "2"}
	if code, _, _ := runCLI(append(args, "-retries", "0")...); code == 0 {
		t.Fatal("eval succeeded without the API key")
	}
	code, stdout, stderr := runCLI(append(args, "-api-key-env", "ARTIST_TEST_KEY")...)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	samples, sums := outputs(t, out)
	if s := sums["amc23"]; s.Pass1 != 0.5 || s.ToolCalls != 1 || s.ToolFailFrac != 0 || len(samples) != 2 {
		t.Fatalf("summary %+v (want pass@1 0.5: 9*3 answers the first problem only)\n%s", s, stdout)
	}
	want := "<think>multiply</think><code>fmt.Println(9 * 3)</code><output>27\n</output>\n<answer>27</answer>"
	if samples[0].Response != want || samples[0].Stop != "answer" || samples[0].Extracted != "27" {
		t.Errorf("sample %+v\nwant response %q", samples[0], want)
	}
	if len(results) != 2 || results[0] != "27\n" {
		t.Errorf("tool messages %q", results)
	}
}
