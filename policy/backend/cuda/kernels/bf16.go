package kernels

// RoundBF16 writes dst[i], the bfloat16 nearest src[i] (ties to even), as
// its 16 bits for n values: src is n float32 values, dst n uint16 values
// (2·n bytes). NaN stays a quiet NaN, values past the largest finite
// bfloat16 become infinities. It is the conversion of an operand before a
// product with bfloat16 inputs, bit for bit the host's rounding (package
// policy's roundBF16).
func RoundBF16(l Launcher, dst, src uintptr, n int) error {
	if n <= 0 {
		return checkSizes("RoundBF16", n)
	}
	return launch(l, "round_bf16", elemGrid(n), threads(blockElems), 0, dst, src, int64(n))
}

// WidenBF16 writes dst[i], the float32 of the bfloat16 whose bits are
// src[i], for n values: src is n uint16 values (2·n bytes), dst n float32
// values. The widening is exact (the bits shifted into the top half), bit
// for bit the host's (package policy's FromBF16), NaNs and infinities
// included. It widens weights held on the device in bfloat16 into a
// float32 scratch before their product.
func WidenBF16(l Launcher, dst, src uintptr, n int) error {
	if n <= 0 {
		return checkSizes("WidenBF16", n)
	}
	return launch(l, "widen_bf16", elemGrid(n), threads(blockElems), 0, dst, src, int64(n))
}
