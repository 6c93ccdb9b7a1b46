package trainer

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
)

func loraRunConfig(t *testing.T, dir string) Config {
	cfg := tinyConfig(t, dir)
	cfg.Model.LoRA.Rank, cfg.Model.LoRA.Alpha, cfg.Model.LoRA.Dropout = 4, 8, 0.1
	cfg.GRPO.Beta = 0.1 // the reference is the base
	return cfg
}

// TestLoRARun: GRPO with model.lora steps only the adapters, checkpoints
// them in PEFT's layout beside the untouched base, and a run resumed from
// them ends where the uninterrupted one does.
func TestLoRARun(t *testing.T) {
	whole := t.TempDir()
	if _, err := Train(context.Background(), loraRunConfig(t, whole), nil); err != nil {
		t.Fatal(err)
	}
	split := t.TempDir()
	first := loraRunConfig(t, split)
	first.GRPO.Steps = 2
	if _, err := Train(context.Background(), first, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), loraRunConfig(t, split), nil); err != nil {
		t.Fatal(err)
	}
	ck := func(dir, name string) string { return filepath.Join(dir, "checkpoints", name) }
	warm, err := policy.LoadModel(ck(whole, "step-000000"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := checkpoint.Open(ck(whole, "step-000004"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := checkpoint.Open(ck(split, "step-000004"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range warm.Params {
		if !slices.Equal(p.Data, a.Model.Params[i].Data) {
			t.Fatalf("base weight %s moved in a LoRA run", p.Name)
		}
	}
	la, lb := a.Model.LoRA(), b.Model.LoRA()
	if la == nil || lb == nil {
		t.Fatal("the GRPO checkpoints hold no adapters")
	}
	moved := 0
	for i, p := range la.Params() {
		if !slices.Equal(p.Data, lb.Params()[i].Data) {
			t.Fatalf("%s: resumed differs from uninterrupted", p.Name)
		}
		if strings.Contains(p.Name, "lora_B") && slices.Max(p.Data) != 0 {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("no adapter B moved in 4 GRPO steps")
	}
	st, err := checkpoint.LoadOptimizer(filepath.Join(ck(whole, "step-000004"), "optimizer.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.M); n != len(la.Params()) {
		t.Errorf("optimizer holds %d tensors' moments, want the %d adapters'", n, len(la.Params()))
	}
}

func TestLoRAConfigKeys(t *testing.T) {
	for _, tc := range []struct {
		set, want string
	}{
		{"model.lora.targets=[q,qkv]", `model.lora.targets[1] = "qkv"`},
		{"model.lora.rank=-2", "model.lora.rank"},
		{"model.lora.ranks=4", `unknown key "model.lora.ranks"`},
		{"model.lora.rank=x", "model.lora.rank"},
	} {
		_, err := Parse(nil, "defaults", []string{"model.lora.rank=4", tc.set})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-set %s: got %v, want an error naming %q", tc.set, err, tc.want)
		}
	}
	cfg, err := Parse([]byte("model:\n  hidden_size: 32\n  lora: {rank: 8, alpha: 16, targets: [q_proj, v]}\n"), "x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model.HiddenSize != 32 || cfg.Model.LoRA.Rank != 8 || !slices.Equal(cfg.Model.LoRA.Targets, []string{"q_proj", "v"}) {
		t.Errorf("decoded %+v", cfg.Model)
	}
	out, err := cfg.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(out, "resolved", nil)
	if err != nil || back.Model.LoRA.Rank != 8 || back.Model.HiddenSize != 32 {
		t.Errorf("resolved config does not read back: %v %+v", err, back.Model)
	}
}
