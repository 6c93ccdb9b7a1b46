package evalbench

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/internal/pyval"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// tauAgent serves /v1/completions as a scripted tau-bench agent: gold
// plays each task's gold actions in one tool block and then says its
// required outputs; otherwise it only says it cannot help. It finds the
// task by the customer's opening message (the instruction, with the
// scripted user) at the end of the prompt.
func tauAgent(t *testing.T, tasks []taubench.Task, gold bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req openai.CompletionRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var prompt string
		json.Unmarshal(req.Prompt, &prompt)
		var task *taubench.Task
		for i := range tasks {
			if strings.Contains(prompt, "# Customer\n"+tasks[i].Instruction) {
				task = &tasks[i]
			}
		}
		text := "I am sorry, I cannot help with that."
		switch {
		case task == nil:
			http.Error(w, "no task in the prompt", http.StatusBadRequest)
			return
		case gold && !strings.Contains(prompt, "<tool_result>") && len(task.Actions) > 0:
			text = "<reasoning>replay</reasoning><tool>" + goldCalls(t, task.Actions)
		case gold:
			text = "Done: " + strings.Join(task.Outputs, ", ")
		}
		var stop any // the end-of-sequence token, or the closing tool tag
		if strings.HasPrefix(text, "<reasoning>") {
			stop = format.Close(fcFormat.Code)
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"text": text, "finish_reason": "stop", "stop_reason": stop}},
			"usage":   map[string]int{"completion_tokens": len(text) / 4},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// goldCalls writes actions as a JSON list of {"name", "arguments"}.
func goldCalls(t *testing.T, acts []taubench.Action) string {
	list := make([]any, len(acts))
	for i, a := range acts {
		list[i] = pyval.NewDict("name", a.Name, "arguments", a.Kwargs)
	}
	s, err := pyval.JSON(list)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTauBench: a scripted agent that plays the gold actions and says the
// outputs to a scripted user scores 1.0 pass@1 and pass^k on both
// domains of the fixture; one that does nothing scores 0, with every
// component recorded.
func TestTauBench(t *testing.T) {
	for _, env := range []string{taubench.Airline, taubench.Retail} {
		tasks, err := taubench.LoadTasks(filepath.Join("..", "testdata", "tau_bench", env, "tasks_test.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, gold := range []bool{true, false} {
			name := taubench.BenchmarkPrefix + env
			b, err := Open(filepath.Join("..", "testdata"), name, func(string) any { return nil }, fcFormat)
			if err != nil {
				t.Fatal(err)
			}
			tool, err := b.Set.Tool(taubench.FamilyName)
			if err != nil {
				t.Fatal(err)
			}
			cfg := rollout.DefaultConfig()
			cfg.Temperature, cfg.MaxToolCalls, cfg.MaxResponseTokens, cfg.MaxResultTokens = 0, 4, 4096, 4096
			rem := &rollout.Remote{URL: tauAgent(t, tasks, gold).URL, Tool: tool, Format: fcFormat, Config: cfg}
			const k = 2
			samples, sum, err := Run(context.Background(), Remote{rem}, b.Set.Heldout(), Options{Bench: name, K: k, Format: fcFormat, Score: b.Scorer.Score}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := 0.0
			if gold {
				want = 1
			}
			if sum.Pass1 != want && len(samples) > 0 {
				t.Logf("first sample: %q calls %+v verdict %v", samples[0].Response, samples[0].Calls, samples[0].Verdict)
			}
			if sum.Pass1 != want || sum.PassHatK != want || sum.K != k {
				t.Errorf("%s gold %v: pass@1 %v pass^%d %v, want %v", name, gold, sum.Pass1, sum.K, sum.PassHatK, want)
			}
			for _, c := range []string{"taubench_reward", "taubench_state", "taubench_function", "taubench_format"} {
				if v, ok := sum.Rewards[c]; !ok || math.Abs(v-want) > 1e-9 && c != "taubench_state" && c != "taubench_format" {
					t.Errorf("%s gold %v: %s = %v (recorded %v), want %v", name, gold, c, v, ok, want)
				}
			}
		}
	}
}
