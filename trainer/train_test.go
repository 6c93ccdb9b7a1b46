package trainer

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/artist-rl/artist/policy"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// tinyConfig is a run small enough for tests: a one-layer model, a few
// warm-start and GRPO steps, a small held-out set.
func tinyConfig(t *testing.T, dir string) Config {
	t.Helper()
	cfg, err := Parse([]byte(`
seed: 3
model:
  hidden_size: 16
  intermediate_size: 32
  num_hidden_layers: 1
  num_attention_heads: 2
  num_key_value_heads: 1
task:
  arith:
    eval_size: 8
warmstart:
  steps: 40
  batch_size: 8
  demos: 32
  lr: 0.02
grpo:
  steps: 4
  batch_size: 2
  lr: 0.01
rollout:
  group_size: 4
  max_response_tokens: 40
eval:
  every: 2
checkpoint:
  every: 2
  keep: 1
`), "tiny", []string{"run_dir=" + dir})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// golden is what a short run records: per-step losses and rewards.
type golden struct {
	Policy []float64 `json:"loss_policy"`
	Reward []float64 `json:"reward_mean"`
	Grad   []float64 `json:"grad_norm"`
}

func runGolden(t *testing.T, dir string) golden {
	recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	for _, m := range recs {
		if m["step"] == 0 {
			continue
		}
		g.Policy = append(g.Policy, m["loss/policy"])
		g.Reward = append(g.Reward, m["reward/mean"])
		g.Grad = append(g.Grad, m["grad/norm"])
	}
	return g
}

// TestShortRunMatchesGolden trains a tiny run end to end and compares its
// per-step losses, rewards and gradient norms with testdata/golden_run.json
// (go test ./trainer -run Golden -update rewrites it).
func TestShortRunMatchesGolden(t *testing.T) {
	dir := t.TempDir()
	sum, err := Train(context.Background(), tinyConfig(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"config.yaml", "metrics.jsonl", "summary.json", "reward_curve.png", "demos.jsonl",
		"samples/warmstart.txt", "samples/final.txt", "checkpoints/latest", "checkpoints/step-000000/model.safetensors",
		"checkpoints/step-000004/optimizer.safetensors", "checkpoints/step-000004/tokenizer.json",
		"checkpoints/step-000004/tokenizer_config.json", "checkpoints/step-000004/generation_config.json",
		"checkpoints/step-000004/manifest.json", "checkpoints/step-000000/manifest.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run folder lacks %s", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "checkpoints", "step-000002")); err == nil {
		t.Error("checkpoint.keep 1 kept step-000002")
	}
	if sum.Steps != 4 || sum.Final.N != 8 || sum.WarmStart.N != 8 {
		t.Errorf("summary %+v", sum)
	}
	if sum.PeakRSSMiB <= 0 {
		t.Errorf("summary peak_rss_mib = %g, want the process's peak", sum.PeakRSSMiB)
	}
	recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range recs[1:] { // GRPO steps
		if !(m["rollout/tokens_per_s"] > 0 && m["sys/peak_rss_mib"] > 0) {
			t.Errorf("step %v: rollout/tokens_per_s %v, sys/peak_rss_mib %v; want both logged and positive", m["step"], m["rollout/tokens_per_s"], m["sys/peak_rss_mib"])
		}
	}
	got := runGolden(t, dir)
	path := filepath.Join("testdata", "golden_run.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var want golden
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	cmp := func(name string, g, w []float64) {
		if len(g) != len(w) {
			t.Fatalf("%s: %d steps, golden has %d", name, len(g), len(w))
		}
		for i := range g {
			if math.Abs(g[i]-w[i]) > 1e-4*math.Max(1, math.Abs(w[i])) {
				t.Errorf("%s step %d: %.6g, golden %.6g", name, i+1, g[i], w[i])
			}
		}
	}
	nonzero := 0
	for i := range want.Policy {
		if want.Policy[i] != 0 && want.Grad[i] != 0 {
			nonzero++
		}
	}
	if nonzero == 0 {
		t.Fatal("the golden run has no non-zero loss: it tests nothing")
	}
	cmp("loss/policy", got.Policy, want.Policy)
	cmp("reward/mean", got.Reward, want.Reward)
	cmp("grad/norm", got.Grad, want.Grad)
}

// TestResumeEqualsUninterrupted stops a run after 2 GRPO steps, resumes it
// to 4, and requires the same weights as a run that never stopped.
func TestResumeEqualsUninterrupted(t *testing.T) {
	whole := t.TempDir()
	if _, err := Train(context.Background(), tinyConfig(t, whole), nil); err != nil {
		t.Fatal(err)
	}
	split := t.TempDir()
	first := tinyConfig(t, split)
	first.GRPO.Steps = 2
	if _, err := Train(context.Background(), first, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), tinyConfig(t, split), nil); err != nil {
		t.Fatal(err)
	}
	a, err := policy.LoadModel(filepath.Join(whole, "checkpoints", "step-000004"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := policy.LoadModel(filepath.Join(split, "checkpoints", "step-000004"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range a.Params {
		for j := range p.Data {
			if p.Data[j] != b.Params[i].Data[j] {
				t.Fatalf("%s[%d]: uninterrupted %v, resumed %v", p.Name, j, p.Data[j], b.Params[i].Data[j])
			}
		}
	}
	ra, _ := ReadMetrics(filepath.Join(whole, "metrics.jsonl"))
	rb, _ := ReadMetrics(filepath.Join(split, "metrics.jsonl"))
	if len(ra) != len(rb) {
		t.Fatalf("metrics: %d records uninterrupted, %d resumed", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i]["reward/mean"] != rb[i]["reward/mean"] || ra[i]["step"] != rb[i]["step"] {
			t.Errorf("record %d differs: %v vs %v", i, ra[i], rb[i])
		}
	}
}

// TestGRPOStepFromCheckpointOnDisk starts a run from a HuggingFace-layout
// checkpoint folder (config.json, model.safetensors, tokenizer.json) the
// way a Qwen2.5 checkpoint is used, and takes GRPO steps on it.
func TestGRPOStepFromCheckpointOnDisk(t *testing.T) {
	src := t.TempDir()
	first := tinyConfig(t, src)
	first.GRPO.Steps = 0
	if _, err := Train(context.Background(), first, nil); err != nil {
		t.Fatal(err)
	}
	init := filepath.Join(src, "checkpoints", "step-000000")

	dir := t.TempDir()
	cfg := tinyConfig(t, dir)
	cfg.Init, cfg.Tokenizer = init, filepath.Join(init, "tokenizer.json")
	cfg.WarmStart.Steps = 0
	cfg.GRPO.Steps = 2
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	before, err := policy.LoadModel(init)
	if err != nil {
		t.Fatal(err)
	}
	after, err := policy.LoadModel(filepath.Join(dir, "checkpoints", "step-000002"))
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, p := range before.Params {
		for j := range p.Data {
			if p.Data[j] != after.Params[i].Data[j] {
				changed++
			}
		}
	}
	recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if changed == 0 {
		t.Fatalf("two GRPO steps changed no weight; metrics %v", recs)
	}
}
