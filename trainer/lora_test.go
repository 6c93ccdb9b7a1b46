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
// them ends where the uninterrupted one does: the same base and adapters
// bit for bit (weightsHash too) and the same rewards. Over a float32 base
// and over one frozen in bfloat16 (model.lora.base_dtype bf16), whose
// resume loads the base straight into bfloat16 (checkResumeLoad).
func TestLoRARun(t *testing.T) {
	for _, dtype := range []string{"f32", "bf16"} {
		t.Run(dtype, func(t *testing.T) {
			cfg := func(dir string) Config {
				c := loraRunConfig(t, dir)
				c.Model.LoRA.BaseDType = dtype
				return c
			}
			whole := t.TempDir()
			if _, err := Train(context.Background(), cfg(whole), nil); err != nil {
				t.Fatal(err)
			}
			split := t.TempDir()
			first := cfg(split)
			first.GRPO.Steps = 2
			if _, err := Train(context.Background(), first, nil); err != nil {
				t.Fatal(err)
			}
			checkResumeLoad(t, cfg(split), 2)
			if _, err := Train(context.Background(), cfg(split), nil); err != nil {
				t.Fatal(err)
			}
			checkLoRARun(t, whole, split, dtype == "bf16")
		})
	}
}

// checkLoRARun compares the uninterrupted run whole with the resumed run
// split (4 GRPO steps each): the base of step 4 is the warm start's
// (rounded to bfloat16 when base16), the adapters and every weight are
// the same bit for bit, some adapter B moved, the optimizer holds the
// adapters' moments alone, and the metrics record the same rewards.
func checkLoRARun(t *testing.T, whole, split string, base16 bool) {
	t.Helper()
	load := policy.LoadModel
	if base16 {
		load = policy.LoadModel16
	}
	ck := func(dir, name string) *policy.Model {
		m, _, err := checkpoint.LoadModel(filepath.Join(dir, "checkpoints", name), nil, load)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	warm, a, b := ck(whole, "step-000000"), ck(whole, "step-000004"), ck(split, "step-000004")
	if name := differingWeight(warm.Params, a.Params); name != "" {
		t.Fatalf("base weight %s moved in a LoRA run", name)
	}
	if a.Frozen16() != base16 {
		t.Errorf("step 4's base frozen in bfloat16: %t, want %t", a.Frozen16(), base16)
	}
	la, lb := a.LoRA(), b.LoRA()
	if la == nil || lb == nil {
		t.Fatal("the GRPO checkpoints hold no adapters")
	}
	if name := differingWeight(append(slices.Clone(a.Params), la.Params()...), append(slices.Clone(b.Params), lb.Params()...)); name != "" {
		t.Fatalf("%s: resumed differs from uninterrupted", name)
	}
	if weightsHash(a) != weightsHash(b) {
		t.Error("weightsHash: resumed differs from uninterrupted")
	}
	moved := 0
	for _, p := range la.Params() {
		if strings.Contains(p.Name, "lora_B") && slices.Max(p.Data) != 0 {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("no adapter B moved in 4 GRPO steps")
	}
	st, err := checkpoint.LoadOptimizer(filepath.Join(whole, "checkpoints", "step-000004", "optimizer.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.M); n != len(la.Params()) {
		t.Errorf("optimizer holds %d tensors' moments, want the %d adapters'", n, len(la.Params()))
	}
	sameRewards(t, whole, split)
}

// sameRewards requires the metrics of the runs in folders a and b to
// hold the same steps with the same rewards.
func sameRewards(t *testing.T, a, b string) {
	t.Helper()
	ra, _ := ReadMetrics(filepath.Join(a, "metrics.jsonl"))
	rb, _ := ReadMetrics(filepath.Join(b, "metrics.jsonl"))
	if len(ra) != len(rb) || len(ra) == 0 {
		t.Fatalf("metrics: %d records in %s, %d in %s", len(ra), a, len(rb), b)
	}
	for i := range ra {
		if ra[i]["reward/mean"] != rb[i]["reward/mean"] || ra[i]["step"] != rb[i]["step"] {
			t.Errorf("metrics record %d differs: %v vs %v", i, ra[i], rb[i])
		}
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
