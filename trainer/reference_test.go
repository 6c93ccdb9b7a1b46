package trainer

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// TestReferenceDType: a short run with a KL reference holds it in the
// configured dtype, records its memory in summary.json, and its KL term
// moves with the rounding while staying finite.
func TestReferenceDType(t *testing.T) {
	kl := map[string][]float64{}
	for i, dtype := range []string{"f32", "bf16"} {
		t.Run(dtype, func(t *testing.T) {
			dir := t.TempDir()
			cfg := tinyConfig(t, dir)
			cfg.GRPO.Beta, cfg.GRPO.Steps, cfg.Model.ReferenceDType = 0.1, 2, dtype
			sum, err := Train(context.Background(), cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := policy.LoadModel(filepath.Join(dir, "checkpoints", "step-000000"))
			if err != nil {
				t.Fatal(err)
			}
			if dtype == "bf16" {
				ref.Freeze16()
			}
			if want := ref.WeightBytes(); sum.ReferenceBytes != want || want == 0 {
				t.Errorf("case %d: summary reference_bytes %d, want %d", i, sum.ReferenceBytes, want)
			}
			if full := 4 * int64(ref.NumParams()); (dtype == "bf16") != (sum.ReferenceBytes < full) {
				t.Errorf("case %d: a %s reference takes %d bytes of %d in float32", i, dtype, sum.ReferenceBytes, full)
			}
			recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range recs {
				if m["step"] == 0 {
					continue
				}
				v, ok := m["loss/kl"]
				if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("case %d: step %g loss/kl %v (recorded %t)", i, m["step"], v, ok)
				}
				kl[dtype] = append(kl[dtype], v)
			}
		})
	}
	if len(kl["f32"]) == 0 || fmt.Sprint(kl["f32"]) == fmt.Sprint(kl["bf16"]) {
		t.Errorf("the KL terms of an f32 and a bf16 reference agree exactly (%v): was the reference rounded?", kl["f32"])
	}
}

func TestReferenceDTypeKey(t *testing.T) {
	cases := []struct {
		sets []string
		want string
	}{
		{nil, "f32"},
		{[]string{"model.reference_dtype=bf16"}, "bf16"},
		{[]string{"model.reference_dtype=f32"}, "f32"},
	}
	for i, c := range cases {
		cfg, err := Parse(nil, "x.yaml", c.sets)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if cfg.Model.ReferenceDType != c.want {
			t.Errorf("case %d: model.reference_dtype %q, want %q", i, cfg.Model.ReferenceDType, c.want)
		}
	}
}

// TestAdamWRefusesFrozen16: an optimizer over bfloat16 weights is a
// wiring error, not a silent no-op.
func TestAdamWRefusesFrozen16(t *testing.T) {
	m, err := policy.New(policy.Config{VocabSize: 8, HiddenSize: 8, IntermediateSize: 8, NumHiddenLayers: 1,
		NumAttentionHeads: 2, NumKeyValueHeads: 1, MaxPositionEmbeddings: 8, RopeTheta: 10000, RMSNormEps: 1e-6}, rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	m.Freeze16()
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(fmt.Sprint(r), policy.ErrFrozen16.Error()) {
			t.Errorf("NewAdamW on frozen weights: %v, want a panic with %v", r, policy.ErrFrozen16)
		}
	}()
	NewAdamW(cpu.NewGo(), m.Params, DefaultAdamWConfig())
}
