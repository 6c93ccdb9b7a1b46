//go:build !amd64

package cpu

// Without the amd64 kernels every product and exponential runs the
// portable code, with the same results.

// hasAVX2 is false: there are no AVX2 kernels on this architecture.
const hasAVX2 = false

// hasFMA is false: there is no fused multiply-add kernel on this
// architecture.
const hasFMA = false

// hasAVX512 is false: there is no AVX-512 kernel on this architecture.
const hasAVX512 = false

// expSlice replaces every x[i] by Exp32(x[i]).
func expSlice(x []float32) { expSliceGo(x) }

// sgemm4x16 is never called without AVX2.
func sgemm4x16(k int, ta *float32, b *float32, ldb int, c *float32, ldc int) {
	panic("cpu: sgemm4x16 needs amd64 with AVX2")
}

// dot4AVX2 is never called without AVX2.
func dot4AVX2(k int, x *float32, w *float32, out *float32) {
	panic("cpu: dot4AVX2 needs amd64 with AVX2")
}

// rows4x3FMA is never called without FMA.
func rows4x3FMA(k int, x *float32, w *float32, ldw int, out *float32) {
	panic("cpu: rows4x3FMA needs amd64 with AVX2 and FMA")
}

// rows4x3AVX512 is never called without AVX-512.
func rows4x3AVX512(k int, x *float32, w *float32, ldw int, out *float32) {
	panic("cpu: rows4x3AVX512 needs amd64 with AVX-512")
}

// ntTile4x2 is never called without AVX2.
func ntTile4x2(nblk, kb int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int) {
	panic("cpu: ntTile4x2 needs amd64 with AVX2")
}

// sgemm4x32 is never called without AVX-512.
func sgemm4x32(k int, ta *float32, b *float32, ldb int, c *float32, ldc int) {
	panic("cpu: sgemm4x32 needs amd64 with AVX-512")
}

// adamwAVX2 is never called without AVX2.
func adamwAVX2(n int, p, grad, m, v *float32, c *[9]float32) {
	panic("cpu: adamwAVX2 needs amd64 with AVX2")
}
