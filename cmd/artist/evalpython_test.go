package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/pysandbox"
	"github.com/artist-rl/artist/openai"
)

// pythonCall is the code the scripted servers of TestEvalPolicyPython
// write: Python (// is integer division; in Go it starts a comment, so
// the Go sandbox cannot run it). It answers the second math500 fixture
// problem, 24 seeds shared by 4 kids.
const pythonCall = "print(24 // 4)"

// pythonCompletions is a completions server that writes pythonCall and
// then answers with the output it read.
func pythonCompletions(t *testing.T) *httptest.Server {
	return codeAPI(t, "<think>divide</think><code>"+pythonCall, nil)
}

// pythonChat is a chat-completions server that calls run_python with
// pythonCall (it refuses a request that offers any other tool), then
// answers with the tool message it read.
func pythonChat(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.ChatRequest
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Tools) != 1 || req.Tools[0].Function.Name != "run_python" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		msg := openai.AnswerMessage{Role: "assistant", Content: openai.Ptr("<think>divide</think>")}
		finish := "tool_calls"
		if last.Role == "tool" {
			text, _ := openai.MessageText(last.Content)
			msg.Content, finish = openai.Ptr("<answer>"+strings.TrimSpace(text)+"</answer>"), "stop"
		} else {
			args, _ := json.Marshal(map[string]string{"code": pythonCall})
			msg.ToolCalls = []openai.ToolCall{{ID: "call_0", Type: "function", Function: openai.FunctionCall{Name: "run_python", Arguments: string(args)}}}
		}
		json.NewEncoder(w).Encode(openai.ChatCompletion{Choices: []openai.ChatChoice{{Message: msg, FinishReason: finish}}, Usage: openai.Usage{CompletionTokens: 5}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEvalPolicyPython: with -tool python, the Python code a served model
// writes (through either API) runs in the jail, and its output is what
// the model reads and answers with.
func TestEvalPolicyPython(t *testing.T) {
	if py, err := pysandbox.New(pysandbox.DefaultConfig()); err != nil {
		t.Skipf("no Python jail here: %v", err)
	} else {
		py.Close()
	}
	cases := []struct {
		name string
		srv  func(*testing.T) *httptest.Server
		api  string
	}{
		{"completions", pythonCompletions, "completions"},
		{"chat", pythonChat, "chat"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runCLI("eval", "-bench", "math500", "-data", "testdata/bench", "-policy", c.srv(t).URL,
				"-api", c.api, "-model", "m", "-temperature", "0", "-tool", "python", "-out", out,
				"-set", "rollout.tool_timeout=60s", "-set", "tool.sandbox.timeout=60s") // a loaded machine can take seconds to start a jail
			if code != 0 {
				t.Fatalf("eval: exit %d: %s", code, stderr)
			}
			samples, sums := outputs(t, out)
			if s := sums["math500"]; s.ToolCalls != 1 || s.ToolFailFrac != 0 || s.Problems != 3 || s.Pass1*3 < 0.99 || s.Pass1*3 > 1.01 {
				t.Fatalf("summary %+v (want pass@1 1/3: 24 // 4 answers the second problem only)\n%s\n%+v", s, stdout, samples)
			}
			want := "<think>divide</think><code>" + pythonCall + "</code><output>6\n</output>\n<answer>6</answer>"
			for _, s := range samples {
				if s.ID == "fx/2" && (s.Response != want || !s.Correct) {
					t.Errorf("sample %+v\nwant response %q", s, want)
				}
			}
		})
	}
}

// TestEvalToolFlag: -tool takes the two code tool kinds only.
func TestEvalToolFlag(t *testing.T) {
	code, _, stderr := runCLI("eval", "-bench", "math500", "-data", "testdata/bench", "-policy", "http://127.0.0.1:1", "-tool", "ruby")
	if code != 2 || !strings.Contains(stderr, `-tool "ruby": want python or sandbox`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
