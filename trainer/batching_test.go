package trainer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/artist-rl/artist/rollout"
)

// TestContinuousBatchingMatchesLockstep: rollout.batching: continuous
// trains the run lockstep trains, to rounding: every step's reward and
// tool calls equal, and the final weights within 1e-6 relative.
func TestContinuousBatchingMatchesLockstep(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two runs")
	}
	run := func(batching string) (string, []Metrics) {
		dir := t.TempDir()
		cfg := tinyConfig(t, dir)
		cfg.Rollout.Batching = batching
		if _, err := Train(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return dir, recs
	}
	lockDir, lock := run(rollout.BatchLockstep)
	contDir, cont := run(rollout.BatchContinuous)
	if len(lock) != len(cont) {
		t.Fatalf("%d metric records against %d", len(cont), len(lock))
	}
	calls := 0.0
	for i := range lock {
		for _, k := range []string{"reward/mean", "rollout/tool_calls/mean", "rollout/response_len/mean"} {
			if cont[i][k] != lock[i][k] {
				t.Errorf("record %d: %s %v continuous, %v lockstep", i, k, cont[i][k], lock[i][k])
			}
		}
		calls += lock[i]["rollout/tool_calls/mean"]
	}
	if calls == 0 {
		t.Error("no rollout called the tool: the runs compare too little")
	}
	last := func(dir string) string { return filepath.Join(dir, "checkpoints", "step-000004") }
	d := relDiff(checkpointWeights(t, last(contDir)), checkpointWeights(t, last(lockDir)))
	t.Logf("final weights: %.2e relative apart", d)
	if d > 1e-6 {
		t.Errorf("final weights differ by %.2e relative, want <= 1e-6", d)
	}
}
