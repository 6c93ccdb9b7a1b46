package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/internal/pyval"
)

// tauAgentAPI is a completions server that plays a scripted tau-bench
// agent. With gold, it writes the task's gold actions in one tool block
// and then, after their results, the task's required outputs, which ends
// its turn; the scripted user then ends the conversation. Without gold it
// only apologises. It finds the task by the customer's opening message,
// the task's instruction (of two tasks with one instruction, the later).
func tauAgentAPI(t *testing.T, tasks []taubench.Task, gold bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var task *taubench.Task
		for i := range tasks {
			if strings.HasSuffix(req.Prompt, "# Customer\n"+tasks[i].Instruction) || strings.Contains(req.Prompt, "# Customer\n"+tasks[i].Instruction+"\n") {
				task = &tasks[i]
			}
		}
		if task == nil {
			http.Error(w, "unknown task", http.StatusBadRequest)
			return
		}
		text, stop := "Sorry, I cannot help.", any(nil)
		switch {
		case gold && len(task.Actions) > 0 && !strings.Contains(req.Prompt, "</tool_result>"):
			calls := make([]any, len(task.Actions))
			for i, a := range task.Actions {
				calls[i] = pyval.NewDict("name", a.Name, "arguments", a.Kwargs)
			}
			js, _ := pyval.JSON(calls)
			text, stop = "<reasoning>go</reasoning><tool>"+js, "</tool>"
		case gold:
			text = "Done. " + strings.Join(task.Outputs, ", ")
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"text": text, "finish_reason": "stop", "stop_reason": stop}},
			"usage":   map[string]int{"completion_tokens": 3},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEvalTauBenchRemote evaluates, through artist eval -policy, a remote
// agent that plays every task's gold actions with the scripted user:
// pass@1 and pass^k are 1 in both domains, but for tasks whose
// instruction another task shares (the agent cannot tell them apart); an
// agent that does nothing scores the share of tasks whose gold leaves the
// database as it was and says nothing (0 on the fixture). It runs on the
// fixture (3 airline, 4 retail tasks) and on the benchmark (50 and 115),
// when present.
func TestEvalTauBenchRemote(t *testing.T) {
	for _, tc := range []struct {
		name   string
		data   func(t *testing.T) string
		counts map[string]int
	}{
		{"fixture", func(*testing.T) string { return fixtureData }, map[string]int{taubench.Airline: 3, taubench.Retail: 4}},
		{"benchmark", func(t *testing.T) string { return filepath.Dir(datadir.Require(t, "tau_bench")) }, map[string]int{taubench.Airline: 50, taubench.Retail: 115}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data(t)
			for _, gold := range []bool{true, false} {
				for env, n := range tc.counts {
					tasks, err := taubench.LoadTasks(filepath.Join(data, "tau_bench", env, "tasks_test.json"))
					if err != nil {
						t.Fatal(err)
					}
					srv := tauAgentAPI(t, tasks, gold)
					out := t.TempDir()
					name := taubench.BenchmarkPrefix + env
					code, stdout, stderr := runCLI("eval", "-bench", name, "-data", data, "-policy", srv.URL, "-n", "2", "-temperature", "0", "-out", out,
						"-set", "rollout.max_tool_calls=4", "-set", "rollout.max_result_tokens=100000", "-set", "rollout.max_response_tokens=100000")
					if code != 0 {
						t.Fatalf("eval: exit %d: %s", code, stderr)
					}
					lo, hi := tauExpected(t, filepath.Join(data, "tau_bench", env), env, tasks, gold)
					_, sums := outputs(t, out)
					if s := sums[name]; s.Pass1 < lo-1e-9 || s.Pass1 > hi+1e-9 || s.PassHatK != s.Pass1 || s.K != 2 || s.Problems != n {
						t.Errorf("%s gold %v: summary %+v, want pass@1 = pass^2 in [%v, %v] over %d", name, gold, s, lo, hi, n)
					}
					if !strings.Contains(stdout, "pass^k") {
						t.Errorf("the table lacks pass^k:\n%s", stdout)
					}
				}
			}
		})
	}
}

// tauExpected bounds the pass@1 of the scripted agent: with gold, every
// task but those sharing their instruction passes, and those may; without,
// exactly the tasks whose gold actions leave the database unchanged and
// that require no output pass.
func tauExpected(t *testing.T, dir, env string, tasks []taubench.Task, gold bool) (lo, hi float64) {
	t.Helper()
	n := float64(len(tasks))
	if gold {
		seen := map[string]int{}
		for _, task := range tasks {
			seen[task.Instruction]++
		}
		shared := 0
		for _, task := range tasks {
			if seen[task.Instruction] > 1 {
				shared++
			}
		}
		return 1 - float64(shared)/n, 1
	}
	d, err := taubench.Load(dir, env)
	if err != nil {
		t.Fatal(err)
	}
	initial := d.NewEnv().Hash()
	pass := 0
	for _, task := range tasks {
		if g, err := taubench.GoldHash(d, task); err == nil && g == initial && len(task.Outputs) == 0 {
			pass++
		}
	}
	return float64(pass) / n, float64(pass) / n
}
