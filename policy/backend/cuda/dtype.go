package cuda

// Compute dtype bf16: MatMul rounds both operands into bfloat16 scratch
// (kernel round_bf16) and cuBLASLt multiplies them with f32 products and
// sums into the float32 c (Precision BF16Inputs). Tensors, and every
// kernel other than MatMul, stay float32.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
)

var _ backend.ComputeDTyper = (*Backend)(nil)

// SetComputeDType makes every later MatMul compute in dtype: "f32" (the
// default) or "bf16" (backend.ComputeDTypes).
func (b *Backend) SetComputeDType(dtype string) error {
	switch dtype {
	case backend.DTypeF32:
		b.bf16.Store(false)
	case backend.DTypeBF16:
		b.bf16.Store(true)
	default:
		return fmt.Errorf("%s: compute dtype %q is unknown: use f32 or bf16", b.name, dtype)
	}
	return nil
}

// ComputeDType is the dtype MatMul computes in: "f32" or "bf16".
func (b *Backend) ComputeDType() string {
	if b.bf16.Load() {
		return backend.DTypeBF16
	}
	return backend.DTypeF32
}

// gemmBF16 queues g on bfloat16 copies of its float32 operands at a
// (cuBLASLt's A, g.A.Elems() values) and bm (its B): each is rounded into
// a pooled block of 2 bytes a value, 256-byte aligned, which goes back to
// the pool once the product is queued (stream order keeps a later user
// of the block behind it).
func (b *Backend) gemmBF16(g GEMM, a, bm uintptr, beta float32, c uintptr) error {
	var half [2]uintptr
	defer func() {
		for _, h := range half {
			if h != 0 {
				b.pool.free(h)
			}
		}
	}()
	for i, op := range []struct {
		addr uintptr
		n    int
	}{{a, g.A.Elems()}, {bm, g.B.Elems()}} {
		h, err := b.pool.allocDirty(2 * op.n)
		if err != nil {
			return fmt.Errorf("bfloat16 copy of %d values: %w", op.n, err)
		}
		half[i] = h
		if err := kernels.RoundBF16(b.dev, h, op.addr, op.n); err != nil {
			return err
		}
	}
	return b.dev.gemm(g, BF16Inputs, half[0], half[1], beta, c)
}
