package trainer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestTauBenchRunLogsRewards runs configs/tiny-taubench-retail.yaml,
// shrunk, on the fixture's retail tasks with the scripted customer: a
// model trained from scratch will not solve them, but every tau-bench
// component is logged at every step, and the same seed gives the same
// rewards.
func TestTauBenchRunLogsRewards(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "configs", "tiny-taubench-retail.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(dir string) []Metrics {
		cfg, err := Parse(data, "tiny-taubench-retail.yaml", []string{
			"run_dir=" + dir, "task.taubench.data=" + filepath.Join("..", "testdata", "tau_bench"),
			"task.taubench.split=test", "task.taubench.heldout=test",
			"model.hidden_size=16", "model.intermediate_size=32", "model.num_hidden_layers=1",
			"model.num_attention_heads=2", "model.num_key_value_heads=1",
			"grpo.steps=2", "rollout.max_response_tokens=24", "checkpoint.every=0",
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Train(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	recs := run(t.TempDir())
	recs = steps(recs)
	if len(recs) != 2 {
		t.Fatalf("%d step records, want 2", len(recs))
	}
	for i, step := range recs {
		for _, k := range []string{"reward/taubench_state/mean", "reward/taubench_function/mean", "reward/taubench_format/mean", "reward/taubench_outputs/mean"} {
			if v, ok := step[k]; !ok || v < 0 || v > 1 {
				t.Errorf("step %d: metric %s = %v, %v; want it logged in [0, 1]", i+1, k, v, ok)
			}
		}
	}
	again := steps(run(t.TempDir()))
	for i := range recs {
		for _, k := range []string{"reward/mean", "reward/taubench_format/mean", "rollout/tool_calls/mean", "rollout/response_len/mean"} {
			if recs[i][k] != again[i][k] {
				t.Errorf("step %d: %s %v and %v from the same seed", i+1, k, recs[i][k], again[i][k])
			}
		}
	}
}

// steps keeps the records of GRPO steps.
func steps(recs []Metrics) []Metrics {
	var out []Metrics
	for _, r := range recs {
		if _, ok := r["reward/mean"]; ok {
			out = append(out, r)
		}
	}
	return out
}
