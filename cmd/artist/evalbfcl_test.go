package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/internal/datadir"
)

// groundTruthAPI is a completions server that plays the ground truth of
// the BFCL entries it is given: in each turn it writes the turn's calls
// in one tool block, then, after their result, "[ok]" and the end of its
// turn; a turn without calls is just "[ok]".
func groundTruthAPI(t *testing.T, entries []bfcl.Entry) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		e := entryOf(entries, req.Prompt)
		turn := strings.Count(req.Prompt, "[ok]")
		if e == nil || turn >= len(e.GroundTruth) {
			http.Error(w, "unknown conversation", http.StatusBadRequest)
			return
		}
		cur := req.Prompt[strings.LastIndex(req.Prompt, "[ok]")+1:]
		text := "[ok]"
		if calls := e.GroundTruth[turn]; len(calls) > 0 && !strings.Contains(cur, "</tool_result>") {
			text = "<reasoning>go</reasoning><tool>[" + strings.Join(calls, ", ") + "]"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"text": text, "finish_reason": "stop"}},
			"usage":   map[string]int{"completion_tokens": 3},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// entryOf finds the entry of a conversation: the one whose user messages
// the prompt holds most of; of a base entry and a missing-function entry
// that tie, the prompt of the latter lacks the withheld functions.
func entryOf(entries []bfcl.Entry, prompt string) *bfcl.Entry {
	var found *bfcl.Entry
	best := 0
	for i := range entries {
		e := &entries[i]
		q := e.Question[0]
		if len(q) == 0 || !strings.Contains(prompt, q[0].Content) {
			continue
		}
		score := 0
		for k := range e.GroundTruth {
			if ms := e.Messages(k); len(ms) > 0 && strings.Contains(prompt, ms[0].Content) {
				score += 2
			}
		}
		docs := prompt[:strings.Index(prompt, q[0].Content)]
		if withheld := e.Withheld(0); len(withheld) > 0 {
			lacks := true
			for _, f := range withheld {
				lacks = lacks && !strings.Contains(docs, `"name": "`+f+`"`)
			}
			if lacks {
				score++
			}
		}
		if found == nil || score > best {
			found, best = e, score
		}
	}
	return found
}

// TestEvalBFCLRemote evaluates a remote policy that plays the ground
// truth of every entry of the four categories (18 conversations of the
// fixture; 800 of the benchmark, when present) through the whole
// pipeline: prompts, user turns, tool sessions with withheld functions,
// the official checker. Every conversation passes. (Each category gets its
// own server: in the benchmark, base and long-context prompts are the same
// text, so one server could not tell their ground truths apart.)
func TestEvalBFCLRemote(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    func(t *testing.T) string // the folder that holds bfcl_v3
		entries map[string]int
	}{
		{"fixture", func(*testing.T) string { return fixtureData },
			map[string]int{"base": 6, "miss_func": 4, "miss_param": 4, "long_context": 4}},
		{"benchmark", func(t *testing.T) string { return filepath.Dir(datadir.Require(t, "bfcl_v3")) },
			map[string]int{"base": 200, "miss_func": 200, "miss_param": 200, "long_context": 200}},
	} {
		t.Run(tc.name, func(t *testing.T) { testEvalBFCLRemote(t, tc.data(t), tc.entries) })
	}
}

func testEvalBFCLRemote(t *testing.T, data string, counts map[string]int) {
	d, err := bfcl.Load(filepath.Join(data, "bfcl_v3"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range bfcl.Categories {
		t.Run(c, func(t *testing.T) {
			entries, err := d.Entries(c)
			if err != nil {
				t.Fatal(err)
			}
			srv := groundTruthAPI(t, entries)
			out := t.TempDir()
			name := bfcl.BenchmarkPrefix + c
			code, _, stderr := runCLI("eval", "-bench", name, "-data", data, "-policy", srv.URL, "-temperature", "0", "-out", out,
				"-set", "rollout.max_tool_calls=30", "-set", "rollout.max_result_tokens=100000", "-set", "rollout.max_response_tokens=100000")
			if code != 0 {
				t.Fatalf("eval: exit %d: %s", code, stderr)
			}
			samples, sums := outputs(t, out)
			n := counts[c]
			if len(samples) != n {
				t.Fatalf("%d samples, want %d", len(samples), n)
			}
			for _, s := range samples {
				v, _ := s.Verdict.(map[string]any) // a bfcl.Verdict, read back from JSON
				if !s.Correct || v == nil || v["valid"] != true || s.Rewards["fc_function"] != 0.5 {
					t.Errorf("%s: correct %v verdict %+v rewards %v", s.ID, s.Correct, s.Verdict, s.Rewards)
				}
			}
			if s := sums[name]; s.Pass1 != 1 || s.Problems != n {
				t.Errorf("summary %+v, want pass@1 1 over %d", s, n)
			}
		})
	}
}

// TestEvalBFCLOverall: evaluating several categories adds their
// unweighted mean as bfcl_v3_overall.
func TestEvalBFCLOverall(t *testing.T) {
	d, err := bfcl.Load(bfclDataDir())
	if err != nil {
		t.Fatal(err)
	}
	base, err := d.Entries("base")
	if err != nil {
		t.Fatal(err)
	}
	srv := groundTruthAPI(t, base[:2])
	out := t.TempDir()
	code, stdout, stderr := runCLI("eval", "-bench", "bfcl_v3_base,bfcl_v3_miss_param", "-data", fixtureData, "-policy", srv.URL,
		"-temperature", "0", "-limit", "2", "-out", out, "-set", "rollout.max_tool_calls=10", "-set", "rollout.max_result_tokens=4000")
	if code == 0 {
		t.Fatalf("eval succeeded though the server knows no miss_param conversation: %s", stdout)
	}
	srv = groundTruthAPI(t, append(base[:2:2], mustEntries(t, d, "miss_param")[:2]...))
	code, stdout, stderr = runCLI("eval", "-bench", "bfcl_v3_base,bfcl_v3_miss_param", "-data", fixtureData, "-policy", srv.URL,
		"-temperature", "0", "-limit", "2", "-out", out, "-set", "rollout.max_tool_calls=10", "-set", "rollout.max_result_tokens=4000")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	_, sums := outputs(t, out)
	o := sums[bfcl.Overall]
	want := (sums["bfcl_v3_base"].Pass1 + sums["bfcl_v3_miss_param"].Pass1) / 2
	if o.Problems != 4 || o.Pass1 != want || sums["bfcl_v3_base"].Pass1 != 1 {
		t.Errorf("overall %+v, want pass@1 %v over 4 problems (base %v)", o, want, sums["bfcl_v3_base"].Pass1)
	}
	if !strings.Contains(stdout, "bfcl_v3_overall") {
		t.Errorf("table has no overall row:\n%s", stdout)
	}
}

func mustEntries(t *testing.T, d *bfcl.Data, category string) []bfcl.Entry {
	t.Helper()
	es, err := d.Entries(category)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// TestEvalBFCLCheckpoint trains a tiny function-calling checkpoint and
// evaluates it locally: every conversation gets a verdict and rewards.
func TestEvalBFCLCheckpoint(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI("train", "-config", filepath.Join("..", "..", "configs", "tiny-fc-bfcl.yaml"), "-set", "run_dir="+dir,
		"-set", "task.bfcl.data="+bfclDataDir(), "-set", "task.bfcl.train=4", "-set", "task.bfcl.heldout=2",
		"-set", "tokenizer_merges=200", "-set", "model.hidden_size=16", "-set", "model.intermediate_size=32",
		"-set", "model.num_hidden_layers=1", "-set", "warmstart.steps=2", "-set", "grpo.steps=0", "-set", "eval.size=1",
		"-set", "rollout.max_response_tokens=32", "-set", "rollout.max_tool_calls=2", "-set", "rollout.max_result_tokens=16")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	out := t.TempDir()
	ckpt := filepath.Join(dir, "checkpoints", "step-000000")
	code, stdout, stderr := runCLI("eval", "-checkpoint", ckpt, "-bench", "bfcl_v3_miss_param", "-data", fixtureData,
		"-limit", "2", "-temperature", "0", "-out", out)
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	samples, sums := outputs(t, out)
	if len(samples) != 2 || sums["bfcl_v3_miss_param"].Problems != 2 {
		t.Fatalf("%d samples, summary %+v", len(samples), sums)
	}
	for _, s := range samples {
		if s.Verdict == nil || len(s.Rewards) != 3 {
			t.Errorf("%s: verdict %+v rewards %v", s.ID, s.Verdict, s.Rewards)
		}
	}
	if !strings.Contains(stdout, "bfcl_v3_miss_param") {
		t.Errorf("table:\n%s", stdout)
	}
}
