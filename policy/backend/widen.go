package backend

// Widener is an optional capability of a device backend: holding
// bfloat16 values in its memory and widening them to float32 there, so
// that weights frozen in bfloat16 (policy's Freeze16) are uploaded once,
// in half the bytes, and each product reads a float32 copy widened on the
// device instead of one widened on the host and uploaded per product.
// Device backends implement it (packages cuda and arenatest); the cpu
// backends, which widen on the host where their tensors are, do not.
// Callers check for it with a type assertion.
//
// A tensor of bfloat16 values is a Tensor like any other whose float32
// slots hold the values' bits, two a slot: value i is the 16 bits at byte
// 2·i of the tensor's memory (the low half of slot i/2 on a
// little-endian device, as every supported one is), so its Len is
// BF16Slots of the values it holds. Only WidenBF16 and Free may be
// given one: other kernels and transfers would treat the bits as float32
// values.
type Widener interface {
	// MirrorBF16 returns a tensor of BF16Slots(len(h)) slots holding
	// the bfloat16 values whose bits are h, in order, uploaded once;
	// when len(h) is odd the last slot's second half is 0. Free
	// releases it. An empty h gives the empty tensor.
	MirrorBF16(h []uint16) (Tensor, error)
	// WidenBF16 writes dst[i], the float32 of the i-th bfloat16 value
	// that src holds, for i < dst.Len(): exactly the host's widening
	// (the bits shifted into the top half of a float32; zeros,
	// subnormals, infinities and NaNs keep their sign and bits). src
	// must hold at least dst.Len() values (BF16Slots(dst.Len()) slots);
	// both are tensors of the backend; it is queued after the kernels
	// before it, like every kernel.
	WidenBF16(dst, src Tensor) error
}

// BF16Slots is the float32 slots that n bfloat16 values take: (n+1)/2.
func BF16Slots(n int) int { return (n + 1) / 2 }
