package main

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/evalbench"
)

var sharedData = filepath.Join("..", "..", "..", "shared", "data")

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
		if e == nil {
			http.Error(w, "unknown conversation", http.StatusBadRequest)
			return
		}
		turn := strings.Count(req.Prompt, "[ok]")
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

// entryOf finds the entry of a conversation by its first question; of a
// base entry and a missing-function entry that share it, the prompt of the
// latter lacks the withheld functions.
func entryOf(entries []bfcl.Entry, prompt string) *bfcl.Entry {
	var found *bfcl.Entry
	for i := range entries {
		e := &entries[i]
		q := e.Question[0]
		if len(q) == 0 || !strings.Contains(prompt, q[0].Content) {
			continue
		}
		docs := prompt[:strings.Index(prompt, q[0].Content)]
		withheld := e.Withheld(0)
		lacks := len(withheld) > 0
		for _, f := range withheld {
			if strings.Contains(docs, `"name": "`+f+`"`) {
				lacks = false
			}
		}
		if found == nil || lacks {
			found = e
		}
	}
	return found
}

// TestEvalBFCLRemote evaluates a remote policy that plays the ground
// truth on two categories: the official checker passes every
// conversation, withheld functions included, and the overall score is
// the mean of the categories.
func TestEvalBFCLRemote(t *testing.T) {
	d, err := bfcl.Load(filepath.Join(sharedData, "bfcl_v3"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []bfcl.Entry
	for _, c := range []string{"base", "miss_func"} {
		es, err := d.Entries(c)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, es[:3]...)
	}
	srv := groundTruthAPI(t, entries)
	out := t.TempDir()
	code, stdout, stderr := runCLI("eval", "-bench", "bfcl_v3_base,bfcl_v3_miss_func", "-data", sharedData, "-policy", srv.URL,
		"-temperature", "0", "-limit", "3", "-out", out, "-set", "rollout.max_tool_calls=10", "-set", "rollout.max_result_tokens=4000")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	samples, sums := outputs(t, out)
	if len(samples) != 6 {
		t.Fatalf("%d samples, want 6", len(samples))
	}
	for _, s := range samples {
		if !s.Correct || s.Verdict == nil || !s.Verdict.Valid || s.Rewards["fc_state"] != 0.5 || s.Rewards["fc_function"] != 0.5 {
			t.Errorf("%s: correct %v verdict %+v rewards %v\n%s", s.ID, s.Correct, s.Verdict, s.Rewards, s.Response)
		}
	}
	for _, name := range []string{"bfcl_v3_base", "bfcl_v3_miss_func", evalbench.BFCLOverall} {
		if s, ok := sums[name]; !ok || math.Abs(s.Pass1-1) > 1e-12 {
			t.Errorf("%s: summary %+v, want pass@1 1", name, s)
		}
	}
	if !strings.Contains(stdout, "bfcl_v3_overall") {
		t.Errorf("table has no overall row:\n%s", stdout)
	}
}

// TestEvalBFCLCheckpoint trains a tiny function-calling checkpoint and
// evaluates it locally: every conversation gets a verdict and rewards.
func TestEvalBFCLCheckpoint(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCLI("train", "-config", filepath.Join("..", "..", "configs", "tiny-fc-bfcl.yaml"), "-set", "run_dir="+dir,
		"-set", "task.bfcl.data="+filepath.Join(sharedData, "bfcl_v3"), "-set", "task.bfcl.train=4", "-set", "task.bfcl.heldout=2",
		"-set", "tokenizer_merges=200", "-set", "model.hidden_size=16", "-set", "model.intermediate_size=32",
		"-set", "model.num_hidden_layers=1", "-set", "warmstart.steps=2", "-set", "grpo.steps=0", "-set", "eval.size=1",
		"-set", "rollout.max_response_tokens=32", "-set", "rollout.max_tool_calls=2", "-set", "rollout.max_result_tokens=16")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	out := t.TempDir()
	ckpt := filepath.Join(dir, "checkpoints", "step-000000")
	code, stdout, stderr := runCLI("eval", "-checkpoint", ckpt, "-bench", "bfcl_v3_miss_param", "-data", sharedData,
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
