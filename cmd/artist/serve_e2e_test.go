package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/server"
)

// TestEvalChatAgainstServe trains a tiny function-calling checkpoint with
// a long context, serves it as artist serve does (its chat template:
// Qwen2.5's fallback, with the tools) and evaluates it with -api chat on
// bfcl_v3_base: every conversation runs to a verdict through the chat
// endpoint.
func TestEvalChatAgainstServe(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a checkpoint")
	}
	dir := t.TempDir()
	code, _, stderr := runCLI("train", "-config", filepath.Join("..", "..", "configs", "tiny-fc-bfcl.yaml"), "-set", "run_dir="+dir,
		"-set", "task.bfcl.data="+bfclDataDir(), "-set", "task.bfcl.train=4", "-set", "task.bfcl.heldout=2",
		"-set", "tokenizer_merges=200", "-set", "model.hidden_size=16", "-set", "model.intermediate_size=32",
		"-set", "model.num_hidden_layers=1", "-set", "model.max_position_embeddings=32768", "-set", "warmstart.steps=1", "-set", "grpo.steps=0", "-set", "eval.size=1",
		"-set", "rollout.max_response_tokens=32", "-set", "rollout.max_tool_calls=2", "-set", "rollout.max_result_tokens=16")
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	var warn strings.Builder
	s, err := server.Open(filepath.Join(dir, "checkpoints", "step-000000"), "", 1, server.Limits{}, &warn)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	out := t.TempDir()
	code, stdout, stderr := runCLI("eval", "-bench", "bfcl_v3_base", "-data", fixtureData, "-policy", srv.URL, "-api", "chat", "-model", "step-000000",
		"-limit", "2", "-temperature", "0", "-out", out, "-set", "rollout.max_response_tokens=24", "-set", "rollout.max_tool_calls=2")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	samples, sums := outputs(t, out)
	if len(samples) != 2 || sums["bfcl_v3_base"].Problems != 2 {
		t.Fatalf("%d samples, summary %+v", len(samples), sums)
	}
	for _, sm := range samples {
		if sm.Verdict == nil || len(sm.Rewards) != 3 || sm.Response == "" {
			t.Errorf("%s: verdict %+v rewards %v response %q", sm.ID, sm.Verdict, sm.Rewards, sm.Response)
		}
	}
	if !strings.Contains(stdout, "bfcl_v3_base") || !strings.Contains(warn.String(), "no chat template") {
		t.Errorf("table:\n%s\nwarnings: %s", stdout, warn.String())
	}
}
