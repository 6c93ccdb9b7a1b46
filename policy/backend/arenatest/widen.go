//go:build unix

package arenatest

// The arena's bfloat16 weights (backend.Widener): their bits are copied
// into an arena block as bytes, two values a float32 slot, and widened
// on the host over views of the arena, so that a model frozen in
// bfloat16 computes here as it does on a GPU.

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/artist-rl/artist/policy/backend"
)

var _ backend.Widener = (*Backend)(nil)

// MirrorBF16 is backend.Widener.MirrorBF16 on the arena: a block of
// backend.BF16Slots(len(h)) slots that holds the bits h in order (a byte
// copy, so no bit pattern changes; the pad half of an odd count stays
// the zero that Alloc wrote).
func (b *Backend) MirrorBF16(h []uint16) (backend.Tensor, error) {
	t, err := b.Alloc(backend.BF16Slots(len(h)))
	if err != nil || len(h) == 0 {
		return t, err
	}
	v, err := b.enter("MirrorBF16", t)
	if err != nil {
		b.Free(t)
		return backend.Tensor{}, err
	}
	defer b.leave()
	copy(halves(v[0].Host()), h)
	return t, nil
}

// WidenBF16 is backend.Widener.WidenBF16 on the arena.
func (b *Backend) WidenBF16(dst, src backend.Tensor) error {
	n := dst.Len()
	if need := backend.BF16Slots(n); src.Len() < need {
		return fmt.Errorf("arenatest: WidenBF16: src holds %d slots, %d values need %d", src.Len(), n, need)
	}
	v, err := b.enter("WidenBF16", dst, src)
	if err != nil {
		return err
	}
	defer b.leave()
	d, s := v[0].Host(), halves(v[1].Host())
	for i := range d {
		d[i] = math.Float32frombits(uint32(s[i]) << 16)
	}
	return nil
}

// halves is x's memory as 2·len(x) uint16 values, shared.
func halves(x []float32) []uint16 {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&x[0])), 2*len(x))
}
