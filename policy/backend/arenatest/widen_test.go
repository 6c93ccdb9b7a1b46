//go:build unix

package arenatest

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// TestWidenBF16 mirrors every bfloat16 bit pattern (and one more, an
// odd count) into the arena and widens them there, whole and in part:
// each float32 is the bits shifted into its top half, NaNs included. A
// host tensor and a src too short are errors.
func TestWidenBF16(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	a := newArena(t, 1<<22)
	n := 1<<16 + 1
	h := make([]uint16, n)
	for i := range h {
		h[i] = uint16(i * 40503) // every pattern, shuffled; the last is h[0]'s
	}
	src, err := a.MirrorBF16(h)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != backend.BF16Slots(n) || src.OnHost() {
		t.Fatalf("MirrorBF16 of %d values: %+v, want a device tensor of %d slots", n, src, backend.BF16Slots(n))
	}
	dst, err := a.Alloc(n + 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WidenBF16(dst.Slice(0, n), src); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n+1)
	if err := a.Download(got, dst); err != nil {
		t.Fatal(err)
	}
	for i, v := range h {
		if want := uint32(v) << 16; math.Float32bits(got[i]) != want {
			t.Fatalf("value %d (%#04x): %#08x, want %#08x", i, v, math.Float32bits(got[i]), want)
		}
	}
	if got[n] != 0 {
		t.Errorf("WidenBF16 of %d values wrote value %d: %v", n, n, got[n])
	}
	if err := a.WidenBF16(backend.Device(dst.Addr(), n+2), src); err == nil {
		t.Errorf("WidenBF16 of %d values from %d slots: no error", n+2, src.Len())
	}
	if err := a.WidenBF16(backend.Host(make([]float32, 2)), src); err == nil {
		t.Error("WidenBF16 into a host tensor: no error")
	}
	if e, err := a.MirrorBF16(nil); err != nil || e.Len() != 0 {
		t.Errorf("MirrorBF16(nil) = %+v, %v, want the empty tensor", e, err)
	}
	a.Free(src)
	a.Free(dst)
	if a.Live() != 0 {
		t.Errorf("%d bytes live after freeing both tensors", a.Live())
	}
}
