package cuda

// Weights frozen in bfloat16 on the device (backend.Widener): their bits
// are uploaded once into an ordinary tensor, two values a float32 slot,
// and kernel widen_bf16 widens a matrix into a float32 tensor right
// before its product.

import (
	"unsafe"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
)

var _ backend.Widener = (*Backend)(nil)

// MirrorBF16 allocates a tensor of backend.BF16Slots(len(h)) slots and
// uploads the bits h into it as bytes (cuMemcpyHtoD copies bytes, so no
// bit pattern changes; the pad half of an odd count stays the zero that
// Alloc wrote).
func (b *Backend) MirrorBF16(h []uint16) (backend.Tensor, error) {
	t, err := b.Alloc(backend.BF16Slots(len(h)))
	if err != nil || len(h) == 0 {
		return t, err
	}
	if err := b.dev.upload(t.Addr(), halfBytes(h)); err != nil {
		b.Free(t)
		return backend.Tensor{}, b.wrap("MirrorBF16", err)
	}
	return t, nil
}

// WidenBF16 writes dst[i], the float32 of the i-th bfloat16 value of src,
// for i < dst.Len() (backend.Widener), with kernel widen_bf16.
func (b *Backend) WidenBF16(dst, src backend.Tensor) error {
	if err := b.args("WidenBF16", dst, src); err != nil {
		return err
	}
	n := dst.Len()
	if err := b.fits("WidenBF16", "src", src.Len(), backend.BF16Slots(n)); err != nil || n == 0 {
		return err
	}
	return b.wrap("WidenBF16", kernels.WidenBF16(b.dev, dst.Addr(), src.Addr(), n))
}

// halfBytes is the bytes of h, shared.
func halfBytes(h []uint16) []byte {
	if len(h) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&h[0])), 2*len(h))
}
