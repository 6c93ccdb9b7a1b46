//go:build unix

package trainer

// LoRA over a base frozen in bfloat16 (model.lora.base_dtype bf16): AdamW
// steps on the arena agree with pure Go, the frozen weights enter the
// device once, and the run's setup freezes the base under the adapters.

import (
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// transfers16 is transfers over a backend.Widener, counting the bfloat16
// values MirrorBF16 uploads apart (half; n counts float32 values only).
type transfers16 struct {
	transfers
	half int
}

func (c *transfers16) MirrorBF16(h []uint16) (backend.Tensor, error) {
	c.half += len(h)
	return c.Backend.(backend.Widener).MirrorBF16(h)
}

func (c *transfers16) WidenBF16(dst, src backend.Tensor) error {
	return c.Backend.(backend.Widener).WidenBF16(dst, src)
}

// base16Weights is the number of decoder-layer linear weights of m: what
// FreezeBase16 holds in bfloat16.
func base16Weights(m *policy.Model) int {
	n := 0
	for _, p := range m.Params {
		if p.Frozen16() {
			n += p.Len()
		}
	}
	return n
}

// loraSteps takes three LoRA AdamW steps (rank 2 on q, v, down; with
// recomputation) of a copy of base on be, over a base frozen in bfloat16
// when base16, and returns the adapters' weights after (on the host) and,
// on a *transfers16, the float32 and bfloat16 values each step moved.
func loraSteps(t *testing.T, base *policy.Model, be backend.Backend, base16 bool, seqs [][]int, coef [][]float32) (adapters [][]float32, moved, half []int) {
	t.Helper()
	m := base.Clone()
	if err := m.AttachLoRA(policy.LoRAConfig{Rank: 2, Alpha: 4, Targets: []string{"q", "v", "down"}}, rand.New(rand.NewSource(12))); err != nil {
		t.Fatal(err)
	}
	m.UseBackend(be)
	m.SetRecompute(true)
	if base16 {
		if err := m.FreezeBase16(); err != nil {
			t.Fatal(err)
		}
	}
	opt := NewModelAdamW(m, m.TrainParams(), AdamWConfig{LR: 1e-2, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8})
	c, _ := be.(*transfers16)
	for range 3 {
		if c != nil {
			c.n, c.half = 0, 0
		}
		if err := m.ZeroGrad(); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Backward(seqs, coef); err != nil {
			t.Fatal(err)
		}
		adamStep(t, opt, 1e-2)
		if c != nil {
			moved, half = append(moved, c.n), append(half, c.half)
		}
	}
	if err := m.HostWeights(); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.LoRA().Params() {
		adapters = append(adapters, p.Data)
	}
	if base16 && base16Weights(m) == 0 {
		t.Error("FreezeBase16 froze nothing")
	}
	return adapters, moved, half
}

// TestLoRABase16StepOnArena: three LoRA AdamW steps over a bfloat16 base
// on the arena give pure Go's adapters (to 1e-5 relative; the same bits
// here), which are those of a float32 base rounded to bfloat16 and differ
// from those of the unrounded base. The frozen weights are uploaded once,
// as bfloat16, in the first step; a later step moves its inputs and
// outputs only, as many values as over a float32 base.
func TestLoRABase16StepOnArena(t *testing.T) {
	base, seqs, coef, arena := arenaFixture(t, 10, 17, 30)
	want, _, _ := loraSteps(t, base, cpu.NewGo(), true, seqs, coef)
	c := &transfers16{transfers: transfers{Backend: arena}}
	got, moved, half := loraSteps(t, base, c, true, seqs, coef)
	if d := maxRelDiff(flat(got), flat(want)); d > 1e-5 {
		t.Errorf("adapters after 3 steps over a bf16 base differ between the arena and pure Go by %.3g relative", d)
	}
	rounded := base.Clone()
	for _, p := range rounded.Params {
		if strings.Contains(p.Name, "_proj.weight") {
			for i, v := range p.Data {
				p.Data[i] = policy.FromBF16(policy.RoundBF16(v))
			}
		}
	}
	if r, _, _ := loraSteps(t, rounded, cpu.NewGo(), false, seqs, coef); maxRelDiff(flat(want), flat(r)) > 1e-5 {
		t.Errorf("adapters over the bf16 base differ from those over the rounded f32 base by %.3g", maxRelDiff(flat(want), flat(r)))
	}
	if f, _, _ := loraSteps(t, base, cpu.NewGo(), false, seqs, coef); maxRelDiff(flat(want), flat(f)) < 1e-5 {
		t.Error("adapters over the bf16 base equal those over the f32 base: the check cannot tell")
	}
	f32 := &transfers16{transfers: transfers{Backend: arena}}
	_, moved32, _ := loraSteps(t, base, f32, false, seqs, coef)
	frozen := 2 * (2*32*32 + 2*32*16 + 3*32*40) // arenaFixture's layer weights
	t.Logf("bf16 base: per step %v float32 and %v bfloat16 values moved; f32 base: %v float32 (%d frozen weights)", moved, half, moved32, frozen)
	if half[0] != frozen {
		t.Errorf("the first step uploaded %d bfloat16 values, want the %d frozen weights once", half[0], frozen)
	}
	for s := 1; s < 3; s++ {
		if half[s] != 0 || moved[s] != moved32[s] {
			t.Errorf("step %d moved %d float32 and %d bfloat16 values, want %d and 0 (as over a float32 base)", s+1, moved[s], half[s], moved32[s])
		}
	}
}

// flat concatenates xs.
func flat(xs [][]float32) []float32 {
	var out []float32
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// TestPrepareLoRABase16: with model.lora.base_dtype bf16 the run's GRPO
// setup attaches the adapters and freezes the base under them (the
// adapters alone train; the reference is that base), and doing it again,
// as a resumed run does over a loaded checkpoint, changes nothing; with
// f32 the base stays float32.
func TestPrepareLoRABase16(t *testing.T) {
	base, _, _, _ := arenaFixture(t, 10, 4)
	for _, dtype := range []string{"f32", "bf16"} {
		t.Run(dtype, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Model.LoRA.Rank, cfg.Model.LoRA.BaseDType = 2, dtype
			r := &Run{Cfg: cfg, Model: base.Clone(), out: io.Discard}
			for range 2 {
				if err := r.prepareLoRA(); err != nil {
					t.Fatal(err)
				}
			}
			if r.Model.LoRA() == nil || r.Model.Frozen16() != (dtype == "bf16") {
				t.Fatalf("adapters %v, frozen %t", r.Model.LoRA() != nil, r.Model.Frozen16())
			}
			for _, p := range r.Model.TrainParams() {
				if p.Frozen16() || !strings.Contains(p.Name, "lora_") {
					t.Errorf("%s trains", p.Name)
				}
			}
			ref, err := r.reference()
			if err != nil || ref.Frozen16() != (dtype == "bf16") {
				t.Errorf("reference: frozen %t, %v", ref != nil && ref.Frozen16(), err)
			}
		})
	}
	if _, ok := resumeKeys["model.lora.base_dtype"]; ok {
		t.Error("model.lora.base_dtype is a resume key: it changes what is trained")
	}
}
