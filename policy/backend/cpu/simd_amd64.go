package cpu

// The amd64 kernels (exp_amd64.s, gemm_amd64.s), used where the CPU has
// AVX2; each gives, bit for bit, the results of the Go code it replaces.

import "math"

// expConsts holds Exp32's constants, eight copies of each, for expAVX2.
var expConsts = func() (c [16][8]float32) {
	for i, v := range []float32{log2e, 0.5, 1, ln2Hi, ln2Lo, expP0, expP1, expP2, expP3, expP4, expP5,
		expLo, expHi, float32(math.Inf(1)), math.Float32frombits(127), 0} {
		for j := range c[i] {
			c[i][j] = v
		}
	}
	return c
}()

// hasAVX2 reports whether the CPU and the OS support AVX2.
var hasAVX2 = func() bool {
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<27) == 0 || c1&(1<<28) == 0 { // OSXSAVE, AVX
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // the OS saves XMM and YMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}()

// hasAVX512 reports whether the CPU has AVX-512 Foundation and the OS
// saves the opmask and ZMM state (rows4x3AVX512).
var hasAVX512 = func() bool {
	if !hasFMA {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&0xe6 != 0xe6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<16) != 0
}()

// hasFMA reports whether the CPU has AVX2 and fused multiply-add (FMA3).
var hasFMA = func() bool {
	_, _, c1, _ := cpuid(1, 0)
	return hasAVX2 && c1&(1<<12) != 0
}()

// expSlice replaces every x[i] by Exp32(x[i]), bit for bit.
func expSlice(x []float32) {
	n := 0
	if hasAVX2 {
		n = len(x) &^ 7
		if n > 0 {
			expAVX2(x[:n], &expConsts)
		}
	}
	expSliceGo(x[n:])
}

// expAVX2 is expSlice on eight lanes at a time; len(x) is a multiple of 8.
// It runs Exp32's operations in Exp32's order, with no fused multiply-add,
// so every lane rounds as Exp32 does.
//
//go:noescape
func expAVX2(x []float32, c *[16][8]float32)

func cpuid(eax, ecx uint32) (a, b, c, d uint32)

func xgetbv() (eax, edx uint32)

// sgemm4x16 adds to the 4×16 block of c at c (row stride ldc) the
// products ta[4l+r]·b[l][0:16] (b's row stride ldb) for l = 0 … k−1 in
// order, skipping zero ta, each a product then a sum (no fused
// multiply-add), as gonum's axpy rounds them.
//
//go:noescape
func sgemm4x16(k int, ta *float32, b *float32, ldb int, c *float32, ldc int)

// dot4AVX2 sets out[r] = Σ_t x[r·k+t]·w[t] for the four rows r of x
// [4, k], k a positive multiple of 8 (see gemvRows).
//
//go:noescape
func dot4AVX2(k int, x *float32, w *float32, out *float32)

// rows4x3FMA sets out[3r+j] = Σ_t x[r·k+t]·w[j·ldw+t] for the four rows
// r of x [4, k] and three rows j of w (row stride ldw; 0 repeats one
// row) in eight lanes of fused multiply-adds added up in a fixed order;
// k is a positive multiple of 8 (see rowsBlock).
//
//go:noescape
func rows4x3FMA(k int, x *float32, w *float32, ldw int, out *float32)

// rows4x3AVX512 is rows4x3FMA in sixteen lanes, lanes l and l+8 added
// first; k is a positive multiple of 16.
//
//go:noescape
func rows4x3AVX512(k int, x *float32, w *float32, ldw int, out *float32)

// ntTile4x2 adds to c [4, 2] (row stride ldc) the dot products of four
// rows of a (stride lda) with two rows of b (stride ldb), block by block:
// nblk blocks of kb floats, kb a multiple of 16, each block's sum in
// gonum's f32.DotUnitary order added to c on its own.
//
//go:noescape
func ntTile4x2(nblk, kb int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

// sgemm4x32 is sgemm4x16 on 32 columns, with AVX-512 (hasAVX512): the
// same operations for every element of c.
//
//go:noescape
func sgemm4x32(k int, ta *float32, b *float32, ldb int, c *float32, ldc int)

// adamwAVX2 is AdamW's update of n weights, n a positive multiple of 8,
// with the portable loop's bits (c: Scale, Beta1, 1−Beta1, Beta2,
// 1−Beta2, RootBC2, Eps, Decay, StepSize).
//
//go:noescape
func adamwAVX2(n int, p, grad, m, v *float32, c *[9]float32)
