package fcsynth_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/artist-rl/artist/envs/builtin"
	"github.com/artist-rl/artist/envs/fcsynth"
	"github.com/artist-rl/artist/trainer"
)

// tiny shrinks a config file for a test: the fixture's documentation and
// entries, a small model, a step or two of each phase.
func tiny(t *testing.T, file string, sets ...string) trainer.Config {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "configs", file))
	if err != nil {
		t.Fatal(err)
	}
	sets = append([]string{
		"warmstart.steps=2", "warmstart.batch_size=2", "grpo.steps=1", "grpo.batch_size=2", "rollout.group_size=2",
		"eval.every=0", "eval.size=2", "checkpoint.every=1",
	}, sets...)
	cfg, err := trainer.Parse(data, file, sets)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestConfigsTrain: configs/tiny-fc-synth.yaml decodes onto the family's
// section and trains end to end, logging the function-calling rewards;
// configs/tiny-fc-curriculum.yaml then continues from its checkpoint on
// BFCL entries.
func TestConfigsTrain(t *testing.T) {
	const fixture = "../../testdata/bfcl_v3"
	synth := filepath.Join(t.TempDir(), "synth")
	cfg := tiny(t, "tiny-fc-synth.yaml", "run_dir="+synth, "task.fcsynth.data="+fixture,
		"task.fcsynth.train=20", "task.fcsynth.heldout=4", "warmstart.demos=8", "tokenizer_merges=200",
		"model.hidden_size=16", "model.intermediate_size=32", "model.num_hidden_layers=1",
		"model.num_attention_heads=2", "model.num_key_value_heads=1")
	sec := cfg.Task.Section(fcsynth.FamilyName).(*fcsynth.Config)
	if cfg.Task.Name != fcsynth.FamilyName || sec.Train != 20 || sec.Functions != 2 || sec.MaxTurns != 3 {
		t.Fatalf("task %s, section %+v: want the fcsynth section of the file", cfg.Task.Name, sec)
	}
	if _, err := trainer.Train(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
	recs, err := trainer.ReadMetrics(filepath.Join(synth, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	last := recs[len(recs)-1]
	for _, k := range []string{"reward/fc_state/mean", "reward/fc_function/mean", "reward/fc_format/mean", "eval/fcsynth/pass@1"} {
		if _, ok := last[k]; !ok {
			t.Errorf("metric %s not logged", k)
		}
	}
	ckpt := filepath.Join(synth, "checkpoints", "step-000001")
	cur := tiny(t, "tiny-fc-curriculum.yaml", "run_dir="+filepath.Join(t.TempDir(), "cur"), "task.bfcl.data="+fixture,
		"task.bfcl.train=4", "task.bfcl.heldout=2", "init="+ckpt, "tokenizer="+filepath.Join(ckpt, "tokenizer.json"),
		"rollout.max_response_tokens=48", "rollout.max_tool_calls=2", "rollout.max_result_tokens=32")
	if _, err := trainer.Train(context.Background(), cur, nil); err != nil {
		t.Fatalf("curriculum from %s: %v", ckpt, err)
	}
}
