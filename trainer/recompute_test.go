package trainer

import (
	"context"
	"path/filepath"
	"testing"
)

// TestRecomputeRun trains a warm start and GRPO steps with model.recompute
// on and off: the weights they end with are the same bits, with the
// update in micro-batches.
func TestRecomputeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two runs")
	}
	train := func(recompute string) []float64 {
		dir := t.TempDir()
		cfg := distConfig(t, dir, "grpo.steps=5", "grpo.micro_batch=3", "model.recompute="+recompute)
		if _, err := Train(context.Background(), cfg, nil); err != nil {
			t.Fatal(err)
		}
		return checkpointWeights(t, filepath.Join(dir, "checkpoints", "step-000005"))
	}
	want, got := train("false"), train("true")
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("weight %d after 5 steps: %g with recompute, %g without", i, got[i], want[i])
		}
	}
}
