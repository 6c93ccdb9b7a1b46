package rollout

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/openai"
)

// echoChat presents a task as one user message and one tool, "echo",
// whose input is the call's arguments.
type echoChat struct{}

func (echoChat) Start(t envs.Task) ([]openai.ChatMessage, []openai.Tool, error) {
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
// that never answers.
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
	rc := &RemoteChat{URL: srv.URL, Tool: echoTool{}, Format: DefaultFormat(), Config: cfg, Chat: echoChat{}, Parallel: 2}
	task := envs.Task{ID: "t", Prompt: "q", Turns: []string{"more"}}
	trajs, toks, err := rc.Run(context.Background(), []envs.Task{task}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := rc.Format
	call := "a" + Open(f.Code) + `{"n": 1}` + Close(f.Code) + ResultBlock(f, `got {"n": 1}`)
	want := call + call + "<answer>42</answer>" + UserTurnText("more") + call + call + "<answer>42</answer>"
	for i, tr := range trajs {
		if tr.Response != want || len(tr.Calls) != 4 || tr.Turns != 2 || tr.Stop != StopAnswer || toks[i] != 6 || tr.Calls[3].Turn != 1 {
			t.Errorf("trajectory %d: %q calls %d turns %d stop %s tokens %d", i, tr.Response, len(tr.Calls), tr.Turns, tr.Stop, toks[i])
		}
	}
	calls = 1 << 20
	trajs, _, err = rc.Run(context.Background(), []envs.Task{task}, 1, nil)
	if err != nil || trajs[0].Stop != StopMaxTurns || len(trajs[0].Calls) != 10 || !strings.HasSuffix(trajs[0].Response, Close(f.Output)+"\na") {
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
