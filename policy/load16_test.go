package policy

// LoadModel16 as the loader of a LoRA checkpoint over a bfloat16 base:
// the model it gives, with the adapters, is LoadModel then FreezeBase16's
// bit for bit; BF16 tensors keep their bits; and no float32 copy of the
// frozen weights is made on the way.

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/artist-rl/artist/policy/backend/cpu"
)

// saveLoRA writes m (its base and its adapters) into a new folder, as a
// LoRA checkpoint is written, and returns it.
func saveLoRA(t *testing.T, m *Model) string {
	t.Helper()
	dir := t.TempDir()
	if err := SaveModel(dir, m); err != nil {
		t.Fatal(err)
	}
	if err := SaveAdapter(dir, m, "base"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// loadLoRA loads dir's base with load and its adapters, on pure Go,
// freezing the base after when freeze is set.
func loadLoRA(t *testing.T, dir string, load func(string) (*Model, error), freeze bool) *Model {
	t.Helper()
	m, err := load(dir)
	if err == nil {
		err = LoadAdapter(dir, m)
	}
	if err == nil && freeze {
		err = m.FreezeBase16()
	}
	if err != nil {
		t.Fatal(err)
	}
	m.UseBackend(cpu.NewGo())
	return m
}

// TestLoadModel16MatchesFreezeBase16: a LoRA checkpoint whose base was
// saved frozen (BF16 tensors) or in float32 (F32, rounded on load), loaded
// with LoadModel16 and its adapters, is the model LoadModel, the adapters
// and FreezeBase16 give: the same bits in every weight (frozen, float32
// and adapter), the same log-probs (LogProbs and Backward's) and adapter
// gradients bit for bit, frozen weights with no float32 values, and
// adapters that train.
func TestLoadModel16MatchesFreezeBase16(t *testing.T) {
	for _, tc := range []struct {
		base string // how the checkpoint holds the layer weights
		tied bool
	}{{"bf16", false}, {"bf16", true}, {"f32", false}, {"f32", true}} {
		t.Run(fmt.Sprintf("%s tied=%t", tc.base, tc.tied), func(t *testing.T) {
			m := testModel(t, tc.tied, 91)
			if err := m.AttachLoRA(loraConfig(2, "q", "v", "down"), rand.New(rand.NewSource(92))); err != nil {
				t.Fatal(err)
			}
			randomB(m, 93)
			if tc.base == "bf16" {
				if err := m.FreezeBase16(); err != nil {
					t.Fatal(err)
				}
			}
			dir := saveLoRA(t, m)
			checkDTypes(t, filepath.Join(dir, "model.safetensors"), m)
			want := loadLoRA(t, dir, LoadModel, true)
			got := loadLoRA(t, dir, LoadModel16, false)
			sameModel(t, got, want)
			seqs, coef := batchFor(94, m.Config.VocabSize)
			w, g := runBase16(t, want, seqs, coef), runBase16(t, got, seqs, coef)
			if !bitsEqual(g.logProbs, w.logProbs) || !bitsEqual(g.backward, w.backward) || !sameBits(g.grads, w.grads) {
				t.Error("LoadModel16 with the adapters computes other log-probs or adapter gradients than LoadModel then FreezeBase16")
			}
			checkFrozenBase(t, got)
			for _, p := range got.TrainParams() {
				if p.Frozen16() || !slices.Contains(got.LoRA().Params(), p) {
					t.Errorf("%s trains: want the adapters only", p.Name)
				}
			}
		})
	}
}

// sameModel requires got and want to hold the same weights bit for bit,
// stored alike (bfloat16 or float32), adapters included.
func sameModel(t *testing.T, got, want *Model) {
	t.Helper()
	ps := func(m *Model) []*Param {
		if l := m.LoRA(); l != nil {
			return append(slices.Clone(m.Params), l.Params()...)
		}
		return m.Params
	}
	g, w := ps(got), ps(want)
	if len(g) != len(w) {
		t.Fatalf("%d parameters, want %d", len(g), len(w))
	}
	for i, p := range g {
		q := w[i]
		if p.Name != q.Name || p.Frozen16() != q.Frozen16() || !slices.Equal(p.half, q.half) || !sameBits(p.Data, q.Data) {
			t.Errorf("%s (frozen %t) differs from %s (frozen %t)", p.Name, p.Frozen16(), q.Name, q.Frozen16())
		}
	}
}

// TestLoadModel16KeepsBF16Bits: the bits of a BF16 tensor come back
// unchanged, a signalling NaN's among them (which widening to float32 and
// rounding back would quiet).
func TestLoadModel16KeepsBF16Bits(t *testing.T) {
	m := testModel(t, false, 95)
	m.Freeze16()
	special := []uint16{0x7f81, 0xff81, 0x7fc5, 0x7f80, 0xff80, 0x8000, 0x0001, 0x807f}
	q := m.Layers[0].Q.half
	copy(q, special)
	dir := t.TempDir()
	if err := SaveModel(dir, m); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel16(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range back.Params {
		if !slices.Equal(p.half, m.Params[i].half) || !sameBits(p.Data, m.Params[i].Data) {
			t.Errorf("%s: LoadModel16 changed bits: first values %#04x, saved %#04x", p.Name, p.half[:min(len(p.half), 8)], m.Params[i].half[:min(len(p.half), 8)])
		}
	}
}

// allocated is the bytes the Go heap allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLoadModel16NoFloat32Copy: loading a model frozen in bfloat16, from
// BF16 tensors or from F32 ones, allocates its own weights plus less than
// a quarter of the float32 copy of the frozen weights (a chunk buffer
// and, for F32, one scratch of the largest layer matrix), where LoadModel
// then FreezeBase16 allocates that whole copy (the check can tell). The
// model's layers are large beside its embedding so the difference is
// megabytes.
func TestLoadModel16NoFloat32Copy(t *testing.T) {
	cfg := Config{
		VocabSize: 64, HiddenSize: 256, IntermediateSize: 1024, NumHiddenLayers: 6,
		NumAttentionHeads: 4, NumKeyValueHeads: 4, MaxPositionEmbeddings: 64,
		RopeTheta: 10000, RMSNormEps: 1e-6,
	}
	m, err := New(cfg, rand.New(rand.NewSource(96)))
	if err != nil {
		t.Fatal(err)
	}
	f32 := t.TempDir()
	if err := SaveModel(f32, m); err != nil {
		t.Fatal(err)
	}
	m.Freeze16()
	copy32 := uint64(4 * base16Count(m)) // the frozen weights' bytes in float32
	bf16 := t.TempDir()
	if err := SaveModel(bf16, m); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []struct{ name, path string }{{"BF16 file", bf16}, {"F32 file", f32}} {
		var got, old *Model
		n16 := allocated(func() { got, err = LoadModel16(dir.path) })
		if err != nil {
			t.Fatal(err)
		}
		nOld := allocated(func() {
			if old, err = LoadModel(dir.path); err == nil {
				err = old.FreezeBase16()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		own := uint64(got.WeightBytes())
		t.Logf("%s: LoadModel16 allocated %.2f MiB beyond its %.2f MiB of weights, LoadModel then FreezeBase16 %.2f MiB; float32 copy %.2f MiB",
			dir.name, mib(n16-own), mib(own), mib(nOld-own), mib(copy32))
		if n16 < own || n16-own >= copy32/4 {
			t.Errorf("%s: LoadModel16 allocated %.2f MiB beyond the model's weights, want under a quarter of the %.2f MiB float32 copy", dir.name, mib(n16-own), mib(copy32))
		}
		if nOld-own < copy32 {
			t.Errorf("%s: LoadModel then FreezeBase16 allocated %.2f MiB beyond the weights, under the float32 copy: the check cannot tell", dir.name, mib(nOld-own))
		}
		sameModel(t, got, old)
	}
}

// base16Count is the number of weights m holds frozen in bfloat16.
func base16Count(m *Model) int {
	n := 0
	for _, p := range m.Params {
		if p.Frozen16() {
			n += p.Len()
		}
	}
	return n
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
