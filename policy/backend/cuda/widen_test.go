//go:build linux

package cuda

import (
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// TestWidenBF16Devices mirrors an odd number of bfloat16 values (every
// class, then random bits) into each device and widens them there, whole
// and in a view: the float32 values come back bit for bit the host's
// widening (policy.FromBF16). Host tensors and a src too short are
// errors.
func TestWidenBF16Devices(t *testing.T) {
	h := []uint16{0x0000, 0x8000, 0x3f80, 0x0001, 0x807f, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffff}
	rng := rand.New(rand.NewSource(9))
	for range 1000 {
		h = append(h, uint16(rng.Uint32()))
	}
	n := len(h) // odd
	for name, b := range modelDevices(t) {
		t.Run(name, func(t *testing.T) {
			src, err := b.(backend.Widener).MirrorBF16(h)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Free(src)
			if src.Len() != (n+1)/2 {
				t.Fatalf("MirrorBF16 of %d values: %d slots, want %d", n, src.Len(), (n+1)/2)
			}
			dst, err := b.Alloc(n + 2)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Free(dst)
			got := make([]float32, n+2)
			got[n] = 42 // past the n values widened: must stay
			if err := b.Upload(dst, got); err != nil {
				t.Fatal(err)
			}
			if err := b.(backend.Widener).WidenBF16(dst.Slice(0, n), src); err != nil {
				t.Fatal(err)
			}
			if err := b.Download(got, dst); err != nil {
				t.Fatal(err)
			}
			for i, v := range h {
				if math.Float32bits(got[i]) != math.Float32bits(policy.FromBF16(v)) {
					t.Fatalf("value %d (%#04x): device %#08x, host %#08x", i, v, math.Float32bits(got[i]), math.Float32bits(policy.FromBF16(v)))
				}
			}
			if got[n] != 42 {
				t.Errorf("WidenBF16 of %d values wrote value %d: %v", n, n, got[n])
			}
			w := b.(backend.Widener)
			if err := w.WidenBF16(dst, src); err == nil {
				t.Errorf("WidenBF16 of %d values from %d slots: no error", n+2, src.Len())
			}
			if err := w.WidenBF16(backend.Host(make([]float32, 4)), src); err == nil {
				t.Error("WidenBF16 into a host tensor: no error")
			}
			if e, err := w.MirrorBF16(nil); err != nil || e.Len() != 0 {
				t.Errorf("MirrorBF16(nil) = %+v, %v, want the empty tensor", e, err)
			}
		})
	}
}

// TestFrozenModelDevices runs a model frozen in bfloat16 on each device,
// where its frozen weights are held in bfloat16 and widened there, and on
// the pure-Go backend, which widens on the host: log-probs and decoding
// logits agree to float32 rounding.
func TestFrozenModelDevices(t *testing.T) {
	cfg := policy.Config{VocabSize: 37, HiddenSize: 24, IntermediateSize: 40, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, MaxPositionEmbeddings: 64, RopeTheta: 10000, RMSNormEps: 1e-6}
	rng := rand.New(rand.NewSource(11))
	seqs := make([][]int, 3)
	for i := range seqs {
		for range 5 + 4*i {
			seqs[i] = append(seqs[i], rng.Intn(cfg.VocabSize))
		}
	}
	m, err := policy.New(cfg, rand.New(rand.NewSource(12)))
	if err != nil {
		t.Fatal(err)
	}
	m.Freeze16()
	run := func(be backend.Backend) (logp, logits [][]float32) {
		m.UseBackend(be)
		logp, err := m.LogProbs(seqs)
		if err != nil {
			t.Fatal(err)
		}
		return logp, decode(t, m, seqs)
	}
	wantLP, wantLogits := run(cpu.NewGo())
	for name, be := range modelDevices(t) {
		t.Run(name, func(t *testing.T) {
			logp, logits := run(be)
			for i := range wantLP {
				closeTo(t, "LogProbs", logp[i], wantLP[i], 1e-4)
			}
			for i := range wantLogits {
				closeTo(t, "decoding logits", logits[i], wantLogits[i], 1e-4)
			}
		})
	}
}
