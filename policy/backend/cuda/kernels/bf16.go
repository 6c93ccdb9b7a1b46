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
