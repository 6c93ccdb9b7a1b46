package policy

// Adapters over a base frozen in bfloat16 (FreezeBase16) against a float32
// model whose layer weights were rounded to bfloat16: the same log-probs
// and adapter gradients, on pure Go.

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// roundLayers rounds m's decoder-layer linear weights to bfloat16 in
// place, keeping them float32: what FreezeBase16 computes with.
func roundLayers(m *Model) {
	for _, p := range m.frozenParams() {
		for i, v := range p.Data {
			p.Data[i] = FromBF16(RoundBF16(v))
		}
	}
}

// base16Case is one setting the bfloat16-base tests run: adapters of cfg
// on a model tied or not, with recomputation or without.
type base16Case struct {
	name      string
	tied      bool
	recompute bool
	cfg       LoRAConfig
}

func base16Cases() []base16Case {
	drop := loraConfig(3, "q", "v", "down")
	drop.Dropout = 0.25
	return []base16Case{
		{"all targets", false, false, loraConfig(2)},
		{"all targets recompute", false, true, loraConfig(2)},
		{"tied qv", true, false, loraConfig(4, "q", "v")},
		{"dropout", false, false, drop},
	}
}

// base16Pair returns a float32 model whose layer weights are rounded to
// bfloat16 and the same model with FreezeBase16, both with the same
// adapters (random B, so every gradient is nonzero) on be.
func base16Pair(t *testing.T, tc base16Case, be func() backend.Backend) (rounded, frozen *Model) {
	t.Helper()
	m := testModel(t, tc.tied, 81)
	rounded, frozen = m.Clone(), m.Clone()
	roundLayers(rounded)
	for _, x := range []*Model{rounded, frozen} {
		x.UseBackend(be())
		if err := x.AttachLoRA(tc.cfg, rand.New(rand.NewSource(82))); err != nil {
			t.Fatal(err)
		}
		randomB(x, 83)
		x.SetRecompute(tc.recompute)
	}
	if err := frozen.FreezeBase16(); err != nil {
		t.Fatal(err)
	}
	return rounded, frozen
}

// adapterGrads is every adapter gradient of m, flat, brought to the host.
func adapterGrads(t *testing.T, m *Model) []float32 {
	t.Helper()
	if err := m.HostGrads(); err != nil {
		t.Fatal(err)
	}
	var g []float32
	for _, p := range m.LoRA().Params() {
		g = append(g, p.Grad...)
	}
	return g
}

// relDiff is max|a−b| / max|b| over rows, 0 for equal values.
func relDiff(a, b [][]float32) float64 {
	scale := 0.0
	for _, r := range b {
		for _, v := range r {
			scale = max(scale, math.Abs(float64(v)))
		}
	}
	return maxDiff(a, b) / max(scale, 1e-30)
}

// base16Run is what one model computes in the tests: Backward's
// log-probs, the adapters' gradients after it, and LogProbs.
type base16Run struct {
	backward, logProbs [][]float32
	grads              []float32
}

func runBase16(t *testing.T, m *Model, seqs [][]int, coef [][]float32) base16Run {
	t.Helper()
	lp, err := m.Backward(seqs, coef)
	if err != nil {
		t.Fatal(err)
	}
	return base16Run{backward: lp, logProbs: logProbs(t, m, seqs), grads: adapterGrads(t, m)}
}

// compare reports where got differs from want by more than tol, relative.
func (got base16Run) compare(t *testing.T, want base16Run, tol float64, what string) {
	t.Helper()
	d := []float64{relDiff(got.backward, want.backward), relDiff(got.logProbs, want.logProbs),
		relDiff([][]float32{got.grads}, [][]float32{want.grads})}
	t.Logf("%s: relative differences: Backward log-probs %.2g, LogProbs %.2g, adapter gradients %.2g", what, d[0], d[1], d[2])
	for i, name := range []string{"Backward's log-probs", "LogProbs", "adapter gradients"} {
		if d[i] > tol {
			t.Errorf("%s: %s differ by %.3g relative, over %g", what, name, d[i], tol)
		}
	}
}

// TestLoRABase16MatchesRounded: on pure Go, adapters over a base frozen in
// bfloat16 give the log-probs and adapter gradients of a float32 model
// whose layer weights were rounded to bfloat16 (to 1e-5 relative; the
// same products of the same values, so in fact the same bits), while the
// unrounded model differs by more (the check can tell). Gradients reach
// the first layer's adapters through the second layer's frozen weights,
// and the frozen weights get none.
func TestLoRABase16MatchesRounded(t *testing.T) {
	for _, tc := range base16Cases() {
		t.Run(tc.name, func(t *testing.T) {
			seqs, coef := batchFor(84, tinyConfig(tc.tied).VocabSize)
			rounded, frozen := base16Pair(t, tc, func() backend.Backend { return cpu.NewGo() })
			want := runBase16(t, rounded, seqs, coef)
			got := runBase16(t, frozen, seqs, coef)
			got.compare(t, want, 1e-5, "bf16 base vs rounded f32")
			full := testModel(t, tc.tied, 81) // the same model, not rounded
			full.UseBackend(cpu.NewGo())
			if d := relDiff(logProbs(t, full, seqs), want.logProbs); d < 1e-4 {
				t.Errorf("rounding the layers to bfloat16 moved the log-probs by %.2g only: the check cannot tell a float32 base", d)
			}
			checkFrozenBase(t, frozen)
		})
	}
}

// checkFrozenBase requires m's layer weights to be frozen without float32
// values or gradients, and the first layer's adapters (below the second
// layer's frozen weights) to have nonzero gradients.
func checkFrozenBase(t *testing.T, m *Model) {
	t.Helper()
	for _, p := range m.frozenParams() {
		if !p.Frozen16() || p.Data != nil || p.Grad != nil {
			t.Errorf("%s: frozen %t, %d float32 values, %d gradients", p.Name, p.Frozen16(), len(p.Data), len(p.Grad))
		}
	}
	for _, a := range m.LoRA().Adapters {
		if a.Layer != 0 {
			continue
		}
		norm := 0.0
		for _, g := range a.A.Grad {
			norm += float64(g) * float64(g)
		}
		if norm == 0 {
			t.Errorf("layer 0's adapter %s has a zero gradient: nothing came back through layer 1", a.A.Name)
		}
	}
}

// TestLoRABase16Writes: with a bfloat16 base, an optimizer's parameters
// are the adapters alone; Backward and EnableGrads without adapters
// refuse; SaveModel writes the frozen weights as BF16 tensors, which
// load back bit for bit (LoadModel16) or widened (LoadModel), and the
// saved adapters on the loaded base compute what the model did; Merged
// is float32 and equals the merge of the rounded float32 model.
func TestLoRABase16Writes(t *testing.T) {
	tc := base16Cases()[0]
	rounded, frozen := base16Pair(t, tc, func() backend.Backend { return cpu.NewGo() })
	for _, p := range frozen.TrainParams() {
		if p.Frozen16() || !strings.Contains(p.Name, "lora_") {
			t.Errorf("TrainParams holds %s (frozen %t): want the adapters only", p.Name, p.Frozen16())
		}
	}
	seqs := randomSeqs(rand.New(rand.NewSource(85)), frozen.Config.VocabSize, 9, 14)
	dir := t.TempDir()
	if err := SaveModel(dir, frozen); err != nil {
		t.Fatal(err)
	}
	if err := SaveAdapter(dir, frozen, "base"); err != nil {
		t.Fatal(err)
	}
	checkDTypes(t, filepath.Join(dir, "model.safetensors"), frozen)
	back16, err := LoadModel16(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range back16.Params {
		if fmt.Sprint(p.half) != fmt.Sprint(frozen.Params[i].half) || !sameBits(p.Data, frozen.Params[i].Data) {
			t.Errorf("%s: LoadModel16 of the saved model differs from the frozen base", p.Name)
		}
	}
	back, err := LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range back.Params {
		if !sameBits(p.Data, rounded.Params[i].Data) {
			t.Errorf("%s: LoadModel of the saved model is not the base widened", p.Name)
		}
	}
	if err := LoadAdapter(dir, back16); err != nil {
		t.Fatal(err)
	}
	back16.UseBackend(cpu.NewGo())
	if !bitsEqual(logProbs(t, back16, seqs), logProbs(t, frozen, seqs)) {
		t.Error("the saved base and adapters, loaded, compute other log-probs")
	}
	m16, m32 := merged(t, frozen), merged(t, rounded)
	if m16.Frozen16() {
		t.Error("Merged of a bfloat16 base is frozen: want float32")
	}
	for i, p := range m16.Params {
		if !sameBits(p.Data, m32.Params[i].Data) {
			t.Errorf("%s: Merged of the bfloat16 base differs from Merged of the rounded float32 model", p.Name)
		}
	}
	checkRefusals(t, frozen)
}

// checkRefusals: the frozen m without its adapters (Base) refuses to
// train, and m refuses an in-place merge.
func checkRefusals(t *testing.T, m *Model) {
	t.Helper()
	seqs := [][]int{{1, 2, 3, 4}}
	if _, err := m.Base().Backward(seqs, [][]float32{{0, -1, -1, -1}}); err == nil || !strings.Contains(err.Error(), ErrFrozen16.Error()) {
		t.Errorf("Backward of the frozen base without adapters: %v, want %v", err, ErrFrozen16)
	}
	if err := recovered(func() { m.Base().EnableGrads() }); err == nil {
		t.Error("EnableGrads of the frozen base without adapters did not panic")
	}
	if err := m.MergeAdapters(); err == nil || !strings.Contains(err.Error(), ErrFrozen16.Error()) {
		t.Errorf("MergeAdapters over a bfloat16 base: %v, want %v", err, ErrFrozen16)
	}
}

// checkDTypes requires path's tensors to be BF16 exactly where m's are
// frozen, F32 elsewhere.
func checkDTypes(t *testing.T, path string, m *Model) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(b[:8])
	var head map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &head); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params {
		var e stEntry
		if err := json.Unmarshal(head[p.Name], &e); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		want := "F32"
		if p.Frozen16() {
			want = "BF16"
		}
		if e.DType != want {
			t.Errorf("%s is saved as %s, want %s", p.Name, e.DType, want)
		}
	}
}

// sameBits reports whether a and b hold the same float32 bits.
func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
