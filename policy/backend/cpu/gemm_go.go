package cpu

// The pure-Go backend's matrix products: gonum's Sgemm, with its two
// axpy-shaped cases (op(b) = b) on a register-tiled kernel that does, for
// every element, exactly gonum's operations in gonum's order, and its
// dot-shaped a·bᵀ on another (gemm_nt.go), so results are gonum's bit for
// bit.

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// goBLAS is gonum's BLAS with a faster Sgemm for a·b, aᵀ·b and a·bᵀ.
type goBLAS struct{ gonum.Implementation }

// kBlock × jBlock is the block of b that the row tiles work through
// before moving on, so that it stays in cache (256 KB).
const kBlock, jBlock = 256, 256

// Sgemm is gonum's. For op(b) = b, gonum computes every element of c as
// c ← beta·c (0 when beta is 0), then c ← c + t·b[l][j] for l = 0 … k−1
// in order, t = alpha·op(a)[i][l], skipping l where t is zero; the tiled
// path does the same. Other cases, and arguments gonum would reject, go
// to gonum.
func (g goBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if ntFits(tA, tB, m, n, k, alpha, a, lda, b, ldb, c, ldc) {
		scaleC(m, n, beta, c, ldc)
		sgemmNT(m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	if !hasAVX2 || tB != blas.NoTrans || (tA != blas.NoTrans && tA != blas.Trans) || n < 16 || m < 4 ||
		!fits(tA, m, k, a, lda) || !fits(blas.NoTrans, k, n, b, ldb) || !fits(blas.NoTrans, m, n, c, ldc) {
		g.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if (alpha == 0 || k == 0) && beta == 1 {
		return
	}
	scaleC(m, n, beta, c, ldc)
	aTrans := tA == blas.Trans
	at := func(i, l int) float32 { // op(a)[i][l]
		if aTrans {
			return a[l*lda+i]
		}
		return a[i*lda+l]
	}
	tiles := m / 4
	parallelFor(tiles, 4*n*min(k, kBlock)*2, func(lo, hi int) {
		ta := make([]float32, 4*kBlock)
		for k0 := 0; k0 < k; k0 += kBlock {
			kn := min(kBlock, k-k0)
			for jb := 0; jb < n; jb += jBlock {
				je := min(jb+jBlock, n)
				if n-je < 16 {
					je = n // the last columns go with this block
				}
				for t := lo; t < hi; t++ {
					i0 := 4 * t
					packA(ta, aTrans, alpha, a, lda, i0, k0, kn)
					j0 := jb
					for ; hasAVX512 && j0+32 <= je; j0 += 32 {
						sgemm4x32(kn, &ta[0], &b[k0*ldb+j0], ldb, &c[i0*ldc+j0], ldc)
					}
					for ; j0+16 <= je; j0 += 16 {
						sgemm4x16(kn, &ta[0], &b[k0*ldb+j0], ldb, &c[i0*ldc+j0], ldc)
					}
					for r := range 4 {
						axpyTail(c[(i0+r)*ldc+j0:(i0+r)*ldc+je], ta[r:], 4, b[k0*ldb+j0:], ldb, kn)
					}
				}
				if je == n {
					break
				}
			}
		}
	})
	for i := 4 * tiles; i < m; i++ { // the last rows, as gonum loops
		row := c[i*ldc : i*ldc+n]
		for l := range k {
			if t := alpha * at(i, l); t != 0 {
				for j, v := range b[l*ldb : l*ldb+n] {
					row[j] += t * v
				}
			}
		}
	}
}

// scaleC does c ← beta·c as gonum does: zeros for beta 0, nothing for 1.
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// packA writes ta[4l+r] = alpha·op(a)[i0+r][k0+l] for l < kn, r < 4.
func packA(ta []float32, aTrans bool, alpha float32, a []float32, lda, i0, k0, kn int) {
	if aTrans {
		for l := range kn {
			src, dst := a[(k0+l)*lda+i0:(k0+l)*lda+i0+4], ta[l*4:l*4+4]
			dst[0], dst[1], dst[2], dst[3] = alpha*src[0], alpha*src[1], alpha*src[2], alpha*src[3]
		}
		return
	}
	for r := range 4 {
		for l, v := range a[(i0+r)*lda+k0 : (i0+r)*lda+k0+kn] {
			ta[l*4+r] = alpha * v
		}
	}
}

// axpyTail does c[j] += t_l·b[l][j] for l = 0 … kn−1 in order, t_l =
// ta[l·stride], skipping zero t_l.
func axpyTail(c, ta []float32, stride int, b []float32, ldb, kn int) {
	if len(c) == 0 {
		return
	}
	for l := range kn {
		if t := ta[l*stride]; t != 0 {
			for j, v := range b[l*ldb : l*ldb+len(c)] {
				c[j] += t * v
			}
		}
	}
}
