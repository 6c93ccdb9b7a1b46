package cpu

// Matrix products and the small row operations around them.

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"

	"github.com/artist-rl/artist/policy/backend"
)

// MatMul computes c [m, n] = op(a)·op(b) + beta·c (see backend.Kernels).
func (b *Backend) MatMul(ta, tb bool, m, n, k int, a, bm backend.Tensor, beta float32, c backend.Tensor) error {
	if err := onHost("MatMul", a, bm, c); err != nil {
		return err
	}
	b.gemm(ta, tb, m, n, k, host(a), host(bm), beta, host(c))
	return nil
}

// gemm computes y = op(a)·op(b) + beta·y where op(a) is [m, k] and
// op(b) is [k, n]; ta/tb say whether a and b are stored transposed.
func (b *Backend) gemm(ta, tb bool, m, n, k int, a, bm []float32, beta float32, y []float32) {
	if m == 0 || n == 0 {
		return
	}
	tA, lda := blas.NoTrans, k
	if ta {
		tA, lda = blas.Trans, m
	}
	tB, ldb := blas.NoTrans, n
	if tb {
		tB, ldb = blas.Trans, k
	}
	if k == 0 {
		for i := range y[:m*n] {
			y[i] *= beta
		}
		return
	}
	if !ta && tb && m <= 4 && hasAVX2 && k%8 == 0 && n*k >= fewRowsMinWeights {
		b.fewRows(m, n, k, a, bm, beta, y)
		return
	}
	if ta && !tb && beta == 0 && splitK(m, n, k) > 1 {
		b.gemmSplitK(m, n, k, a, bm, y)
		return
	}
	if b.splitMN {
		b.gemmSplitMN(tA, tB, m, n, k, a, lda, bm, ldb, beta, y)
		return
	}
	b.blas.Sgemm(tA, tB, m, n, k, 1, a, lda, bm, ldb, beta, y, n)
}

// fewRowsMinWeights is the least weight matrix (n·k values, 4 MB) that
// fewRows takes: one larger than the caches, which a library reads twice
// for a product of a few rows (packing it, then multiplying).
const fewRowsMinWeights = 1 << 20

// fewRows computes y [m, n] = a·wᵀ + beta·y for m ≤ 4 rows a [m, k] and
// a large w [n, k] (a linear layer decoding a few sequences), reading w
// once: each row of w meets the four rows of a, kept in the first-level
// cache, in one pass (dot4AVX2). The columns of y are split among
// backend.Threads() goroutines. Sums run in another order than the library's, so
// results agree with it to float32 rounding.
func (b *Backend) fewRows(m, n, k int, a, w []float32, beta float32, y []float32) {
	var x []float32 // [4, k]: a, zero rows added
	if m == 4 {
		x = a[: 4*k : 4*k]
	} else {
		x = make([]float32, 4*k)
		copy(x, a[:m*k])
	}
	backend.Split(n, min(backend.Threads(), n/256), func(n0, n1 int) {
		var out [4]float32
		for j := n0; j < n1; j++ {
			dot4AVX2(k, &x[0], &w[j*k], &out[0])
			for i := range m {
				if beta == 0 {
					y[i*n+j] = out[i]
				} else {
					y[i*n+j] = out[i] + beta*y[i*n+j]
				}
			}
		}
	})
}

// minSplit is the least m·n·k worth splitting among goroutines: about
// 20 µs of work for one core.
const minSplit = 1 << 20

// gemmSplitMN computes y [m, n] = op(a)·op(b) + beta·y with the rows of
// y (or its columns, when n is the longer side) split among backend.Threads()
// goroutines, each making one single-threaded library call on its block.
// Every element is computed as one call would compute it.
func (b *Backend) gemmSplitMN(tA, tB blas.Transpose, m, n, k int, a []float32, lda int, bm []float32, ldb int, beta float32, y []float32) {
	workers := min(backend.Threads(), max(m, n)/16)
	if workers < 2 || m*n*k < minSplit {
		b.blas.Sgemm(tA, tB, m, n, k, 1, a, lda, bm, ldb, beta, y, n)
		return
	}
	backend.Split(max(m, n), workers, func(lo, hi int) {
		if m >= n {
			aw := a[lo:] // columns lo.. of a stored [k, m]
			if tA == blas.NoTrans {
				aw = a[lo*lda:] // rows lo.. of a
			}
			b.blas.Sgemm(tA, tB, hi-lo, n, k, 1, aw, lda, bm, ldb, beta, y[lo*n:], n)
			return
		}
		bw := bm[lo:] // columns lo.. of b
		if tB == blas.Trans {
			bw = bm[lo*ldb:] // rows lo.. of b stored [n, k]
		}
		b.blas.Sgemm(tA, tB, m, hi-lo, k, 1, a, lda, bw, ldb, beta, y[lo:], n)
	})
}

// splitK returns how many workers should share the k dimension of a
// product with a small [m, n] output and a long k (a weight gradient
// dyᵀ·x summed over many rows): gonum runs such products on one goroutine.
func splitK(m, n, k int) int {
	const block = 64 // gonum's sgemm block size; it goes parallel at 4 blocks
	if ((m+block-1)/block)*((n+block-1)/block) >= 4 {
		return 1
	}
	return min(backend.Threads(), k/256)
}

// gemmSplitK computes y [m, n] = aᵀ·b for a [k, m] and b [k, n] with the
// rows of a and b split among workers, each summing into its own buffer.
func (b *Backend) gemmSplitK(m, n, k int, a, bm, y []float32) {
	workers := splitK(m, n, k)
	parts := make([][]float32, workers)
	parts[0] = y[:m*n]
	for w := 1; w < workers; w++ {
		parts[w] = make([]float32, m*n)
	}
	var wg sync.WaitGroup
	for w := range workers {
		k0, k1 := w*k/workers, (w+1)*k/workers
		wg.Go(func() {
			b.blas.Sgemm(blas.Trans, blas.NoTrans, m, n, k1-k0, 1, a[k0*m:], m, bm[k0*n:], n, 0, parts[w], n)
		})
	}
	wg.Wait()
	for _, p := range parts[1:] {
		for i, v := range p {
			y[i] += v
		}
	}
}

// sgemm is BLAS Sgemm on row-major strided matrices: c = alpha·op(a)·op(b)
// + beta·c with op(a) [m, k], op(b) [k, n], c [m, n].
func (b *Backend) sgemm(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, bm []float32, ldb int, beta float32, c []float32, ldc int) {
	tA, tB := blas.NoTrans, blas.NoTrans
	if ta {
		tA = blas.Trans
	}
	if tb {
		tB = blas.Trans
	}
	b.blas.Sgemm(tA, tB, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc)
}

// AddBias adds bias [M] to every row of y [rows, M].
func (b *Backend) AddBias(y, bias backend.Tensor) error {
	if err := onHost("AddBias", y, bias); err != nil {
		return err
	}
	yy, bb := host(y), host(bias)
	M := len(bb)
	if M == 0 {
		return nil
	}
	parallelFor(len(yy)/M, M, func(lo, hi int) {
		for r := lo * M; r < hi*M; r += M {
			row := yy[r : r+M]
			for j, v := range bb {
				row[j] += v
			}
		}
	})
	return nil
}

// ColSum writes out [M] = Σ_r x[r] over the rows of x [rows, M], the
// columns split among goroutines (each sums its rows in order).
func (b *Backend) ColSum(out, x backend.Tensor) error {
	if err := onHost("ColSum", out, x); err != nil {
		return err
	}
	o, xx := host(out), host(x)
	M := len(o)
	if M == 0 {
		return nil
	}
	rows := len(xx) / M
	parallelFor(M, rows, func(lo, hi int) {
		oo := o[lo:hi]
		clear(oo)
		for r := 0; r < rows; r++ {
			for j, v := range xx[r*M+lo : r*M+hi] {
				oo[j] += v
			}
		}
	})
	return nil
}

// Embed copies rows ids[r] of table [V, C] into out [N, C].
func (b *Backend) Embed(out, table, ids backend.Tensor, C int) error {
	if err := onHost("Embed", out, table, ids); err != nil {
		return err
	}
	o, E := host(out), host(table)
	for r, id := range host(ids) {
		t := int(id)
		copy(o[r*C:(r+1)*C], E[t*C:(t+1)*C])
	}
	return nil
}

// EmbedBack scatters the rows of dy [N, C] into dtable [V, C] by ids,
// the columns split among goroutines (each adds its rows in order).
func (b *Backend) EmbedBack(dtable, ids, dy backend.Tensor, C int) error {
	if err := onHost("EmbedBack", dtable, ids, dy); err != nil {
		return err
	}
	out, d, id := host(dtable), host(dy), host(ids)
	parallelFor(len(out), 1, func(lo, hi int) { clear(out[lo:hi]) })
	parallelFor(C, len(id)*2, func(lo, hi int) {
		for r, x := range id {
			t := int(x)
			dst, src := out[t*C+lo:t*C+hi], d[r*C+lo:r*C+hi]
			for j, v := range src {
				dst[j] += v
			}
		}
	})
	return nil
}

// Copy writes dst = src.
func (b *Backend) Copy(dst, src backend.Tensor) error {
	if err := onHost("Copy", dst, src); err != nil {
		return err
	}
	if dst.Len() != src.Len() {
		return fmt.Errorf("cpu: Copy of %d values into a tensor of %d", src.Len(), dst.Len())
	}
	copy(host(dst), host(src))
	return nil
}

// Add does y += x.
func (b *Backend) Add(y, x backend.Tensor) error {
	if err := onHost("Add", y, x); err != nil {
		return err
	}
	if y.Len() != x.Len() {
		return fmt.Errorf("cpu: Add of %d values to a tensor of %d", x.Len(), y.Len())
	}
	yy := host(y)
	for i, v := range host(x) {
		yy[i] += v
	}
	return nil
}

// Mul writes y = a ⊙ b.
func (b *Backend) Mul(y, a, c backend.Tensor) error {
	if err := onHost("Mul", y, a, c); err != nil {
		return err
	}
	if y.Len() != a.Len() || y.Len() != c.Len() {
		return fmt.Errorf("cpu: Mul of %d by %d values into a tensor of %d", a.Len(), c.Len(), y.Len())
	}
	yy, bb := host(y), host(c)
	for i, v := range host(a) {
		yy[i] = v * bb[i]
	}
	return nil
}

// Scale does x *= s.
func (b *Backend) Scale(x backend.Tensor, s float32) error {
	if err := onHost("Scale", x); err != nil {
		return err
	}
	xx := host(x)
	for i := range xx {
		xx[i] *= s
	}
	return nil
}
