package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/internal/pyval"

	"github.com/artist-rl/artist/server"
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

// tauServeArgs are the budgets of the served evaluations: small enough
// for a tiny model on two cores, with the customer's replies bounded.
var tauServeArgs = []string{"-bench", taubench.BenchmarkPrefix + taubench.Retail, "-data", fixtureData, "-limit", "5", "-n", "2", "-temperature", "1", "-seed", "7",
	"-set", "task.taubench.docs=signatures", "-set", "task.taubench.max_replies=2", "-set", "task.taubench.user.max_tokens=8", "-set", "task.taubench.user.temperature=1",
	"-set", "rollout.max_response_tokens=48", "-set", "rollout.max_tool_calls=2", "-set", "rollout.max_result_tokens=32"}

// TestEvalTauBenchServe trains a tiny function-calling checkpoint with a
// long context (a short warm start on BFCL conversations, so it sometimes
// ends its turn), serves it as artist serve does, and evaluates it on
// taubench_retail (-limit 5: the fixture's 4 tasks, 2 samples each) with
// the agent on the served checkpoint through -api completions and -api
// chat and the customer played by the same server (-user-policy), and
// with the customer as the checkpoint in process (-user-checkpoint), twice
// with one seed. Every conversation runs to a verdict with every reward
// component; the customer's turns are recorded (replies, and the user
// turns of the response); the table and summary.json give pass@1 and
// pass^k; the in-process customer repeats itself for a seed. The scores
// are 0: the model is untrained.
func TestEvalTauBenchServe(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a checkpoint")
	}
	dir := t.TempDir()
	code, _, stderr := runCLI("train", "-config", filepath.Join("..", "..", "configs", "tiny-fc-bfcl.yaml"), "-set", "run_dir="+dir,
		"-set", "task.bfcl.data="+bfclDataDir(), "-set", "task.bfcl.train=4", "-set", "task.bfcl.heldout=2", "-set", "tokenizer_merges=200",
		"-set", "model.hidden_size=16", "-set", "model.intermediate_size=32", "-set", "model.num_hidden_layers=1", "-set", "model.max_position_embeddings=32768",
		"-set", "warmstart.steps=60", "-set", "warmstart.batch_size=2", "-set", "warmstart.micro_batch=2", "-set", "warmstart.lr=0.02", "-set", "grpo.steps=0",
		"-set", "eval.size=1", "-set", "rollout.max_response_tokens=16", "-set", "rollout.max_tool_calls=1", "-set", "rollout.max_result_tokens=16")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	ckpt := filepath.Join(dir, "checkpoints", "warmstart-000060")
	s, err := server.Open(ckpt, "tiny", 1, server.Limits{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	served := []string{"-user-policy", srv.URL, "-user-model", "tiny"}
	runs := map[string][]string{
		"completions, served user":     append([]string{"-api", "completions"}, served...),
		"chat, served user":            append([]string{"-api", "chat"}, served...),
		"completions, checkpoint user": {"-api", "completions", "-user-checkpoint", ckpt},
	}
	samples := map[string][]byte{}
	for _, name := range []string{"completions, served user", "chat, served user", "completions, checkpoint user", "completions, checkpoint user"} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			args := append(append([]string{"eval", "-policy", srv.URL, "-model", "tiny", "-out", out}, tauServeArgs...), runs[name]...)
			code, stdout, stderr := runCLI(args...)
			if code != 0 {
				t.Fatalf("eval: exit %d: %s", code, stderr)
			}
			checkTauServed(t, out, stdout)
			b, err := os.ReadFile(filepath.Join(out, "samples.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if prev, ok := samples[name]; ok && string(prev) != string(b) {
				t.Errorf("a second run with seed 7 wrote other samples")
			}
			samples[name] = b
		})
	}
}

// checkTauServed checks one served evaluation's outputs: 8 samples with
// every reward component (taubench_outputs where the task requires an
// output, so in the summary), at least one of them talking with the
// customer, whose messages are in the response; pass@1 and pass^k in the
// table and in summary.json.
func checkTauServed(t *testing.T, out, stdout string) {
	t.Helper()
	name := taubench.BenchmarkPrefix + taubench.Retail
	samples, sums := outputs(t, out)
	if sum := sums[name]; len(samples) != 8 || sum.Problems != 4 || sum.K != 2 || len(sum.Rewards) != len(taubench.RewardNames) {
		t.Fatalf("%d samples, summary %+v", len(samples), sum)
	}
	replies := 0
	for _, sm := range samples {
		for _, r := range taubench.RewardNames {
			if _, ok := sm.Rewards[r]; !ok && r != "taubench_outputs" { // outputs: tasks that require some
				t.Errorf("%s: no reward %s in %v", sm.ID, r, sm.Rewards)
			}
		}
		for _, r := range sm.Replies {
			if !r.Done && (r.Message == "" || !strings.Contains(sm.Response, r.Message)) {
				t.Errorf("%s: the customer's %q is not in the response %q", sm.ID, r.Message, sm.Response)
			}
			replies++
		}
	}
	if replies == 0 {
		t.Errorf("no conversation reached the customer: stops %v", stops(samples))
	}
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]map[string]any
	json.Unmarshal(raw, &keys)
	for _, k := range []string{"pass@1", "pass^k"} {
		if _, ok := keys[name][k]; !ok || !strings.Contains(stdout, k) {
			t.Errorf("%s missing from summary.json %s or the table:\n%s", k, raw, stdout)
		}
	}
	t.Logf("%d replies over %d samples", replies, len(samples))
}

// stops counts the samples' stop reasons.
func stops(samples []evalbench.Sample) map[string]int {
	out := map[string]int{}
	for _, s := range samples {
		out[string(s.Stop)]++
	}
	return out
}
