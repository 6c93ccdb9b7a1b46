package cpu

// The pure-Go backend's a·bᵀ product (a linear layer's forward pass,
// x·Wᵀ), in gonum's sums: gonum's Sgemm computes each element of c as
// c += alpha·DotUnitary(a row, b row), over the whole of k when the
// product has fewer than four 64×64 blocks of c, else block by block of
// 64 along k, each block's dot added to c in order. ntTile4x2 computes
// eight such dots at a time, in DotUnitary's order, where DotUnitary's
// order is the one it has for a b row 16-byte aligned and a length a
// multiple of 16; Sgemm takes this path only then.

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// gonumBlock is gonum's sgemm block size; gonum goes parallel, and then
// blocks k, from gonumParBlocks blocks of c.
const gonumBlock, gonumParBlocks = 64, 4

// ntChunk is how much of k (a multiple of gonumBlock) a tile sums
// before the next columns of b: 32 rows of b over ntChunk floats stay
// in the second-level cache while every row tile of a passes them.
const ntChunk, ntCols = 256, 32

// ntFits says whether sgemmNT gives gonum's bits for c += a·bᵀ: AVX2,
// alpha 1, k a positive multiple of 16, and every row of b 16-byte
// aligned.
func ntFits(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) bool {
	return hasAVX2 && tA == blas.NoTrans && tB == blas.Trans && alpha == 1 &&
		k > 0 && k%16 == 0 && ldb%4 == 0 && m >= 4 && n >= 2 &&
		fits(blas.NoTrans, m, k, a, lda) && fits(blas.Trans, k, n, b, ldb) && fits(blas.NoTrans, m, n, c, ldc) &&
		uintptr(unsafe.Pointer(&b[0]))%16 == 0
}

// sgemmNT computes c += a·bᵀ for a [m, k], b [n, k] and c [m, n] with
// gonum's rounding (ntFits must hold).
func sgemmNT(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	kb := gonumBlock
	if blocksOf(m)*blocksOf(n) < gonumParBlocks {
		kb = k // gonum's serial path: one dot over the whole of k
	}
	chunk := max(kb, ntChunk)
	tiles, pairs := m/4, n/2
	parallelFor(tiles, 4*n*k, func(lo, hi int) {
		for k0 := 0; k0 < k; k0 += chunk {
			kn := min(chunk, k-k0)
			full, rem := kn/kb, kn%kb
			for p0 := 0; p0 < pairs; p0 += ntCols / 2 {
				p1 := min(p0+ntCols/2, pairs)
				for t := lo; t < hi; t++ {
					at, ct := a[4*t*lda+k0:], c[4*t*ldc:]
					for p := p0; p < p1; p++ {
						bp := b[2*p*ldb+k0:]
						if full > 0 {
							ntTile4x2(full, kb, &at[0], lda, &bp[0], ldb, &ct[2*p], ldc)
						}
						if rem > 0 {
							ntTile4x2(1, rem, &at[full*kb], lda, &bp[full*kb], ldb, &ct[2*p], ldc)
						}
					}
				}
			}
		}
	})
	// The last rows, and the last column when n is odd, one element at a
	// time in the same sums.
	for i := range m {
		j0 := 2 * pairs
		if i >= 4*tiles {
			j0 = 0
		}
		for j := j0; j < n; j++ {
			for k0 := 0; k0 < k; k0 += kb {
				k1 := min(k0+kb, k)
				c[i*ldc+j] += dotUnitary(a[i*lda+k0:i*lda+k1], b[j*ldb+k0:j*ldb+k1])
			}
		}
	}
}

// blocksOf is how many gonum blocks n rows or columns make.
func blocksOf(n int) int { return (n + gonumBlock - 1) / gonumBlock }

// dotUnitary is gonum's f32.DotUnitary for an aligned y and a length a
// multiple of 16, in portable code: eight lanes (SUM's four and
// P_SUM's), then SUM + P_SUM and a pairwise sum of the four.
func dotUnitary(x, y []float32) float32 {
	var acc [8]float32
	for i := 0; i+8 <= len(x); i += 8 {
		for l := range acc {
			acc[l] += float32(x[i+l] * y[i+l]) // the conversion forbids a fused multiply-add
		}
	}
	var s [4]float32
	for l := range s {
		s[l] = acc[l] + acc[4+l]
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}
