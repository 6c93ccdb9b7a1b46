package policy

// Plain-Go kernels of the forward pass, shared by the sampling path
// (sample.go) and the forward half of the training graph (graph_ops.go).
// All tensors are row-major float32 slices.
//
// Shape legend:
//
//	N rows (one token per row), C channels, H query heads, K key/value
//	heads, D head dim, G = H/K query heads per key/value head, F MLP
//	width, V vocab, P positions held by a sequence.

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// geometry holds the sizes the kernels need.
type geometry struct {
	C, F, V, H, K, D int
	eps              float32
	scale            float32 // 1/sqrt(D)
}

func geometryOf(c Config) geometry {
	D := c.HeadDim()
	return geometry{
		C: c.HiddenSize, F: c.IntermediateSize, V: c.VocabSize,
		H: c.NumAttentionHeads, K: c.NumKeyValueHeads, D: D,
		eps:   float32(c.RMSNormEps),
		scale: float32(1 / math.Sqrt(float64(D))),
	}
}

// gemm computes y = alpha·op(a)·op(b) + beta·y where op(a) is [m, k] and
// op(b) is [k, n]; ta/tb say whether a and b are stored transposed.
func gemm(ta, tb bool, m, n, k int, a, b []float32, beta float32, y []float32) {
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
	if ta && !tb && beta == 0 && splitK(m, n, k) > 1 {
		gemmSplitK(m, n, k, a, b, y)
		return
	}
	blas32.Implementation().Sgemm(tA, tB, m, n, k, 1, a, lda, b, ldb, beta, y, n)
}

// splitK returns how many workers should share the k dimension of a
// product with a small [m, n] output and a long k (a weight gradient
// dyᵀ·x summed over many rows): gonum runs such products on one goroutine.
func splitK(m, n, k int) int {
	const block = 64 // gonum's sgemm block size; it goes parallel at 4 blocks
	if ((m+block-1)/block)*((n+block-1)/block) >= 4 {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), k/256)
}

// gemmSplitK computes y [m, n] = aᵀ·b for a [k, m] and b [k, n] with the
// rows of a and b split among workers, each summing into its own buffer.
func gemmSplitK(m, n, k int, a, b, y []float32) {
	workers := splitK(m, n, k)
	parts := make([][]float32, workers)
	parts[0] = y[:m*n]
	for w := 1; w < workers; w++ {
		parts[w] = make([]float32, m*n)
	}
	var wg sync.WaitGroup
	for w := range workers {
		k0, k1 := w*k/workers, (w+1)*k/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			blas32.Implementation().Sgemm(blas.Trans, blas.NoTrans, m, n, k1-k0, 1, a[k0*m:], m, b[k0*n:], n, 0, parts[w], n)
		}()
	}
	wg.Wait()
	for _, p := range parts[1:] {
		for i, v := range p {
			y[i] += v
		}
	}
}

// linear writes y [N, out] = x [N, in]·wᵀ (+ bias [out] when not nil); w is
// [out, in] as HuggingFace stores it.
func linear(y, x []float32, N, in int, w, bias []float32, out int) {
	gemm(false, true, N, out, in, x, w, 0, y)
	if bias == nil {
		return
	}
	for r := 0; r < N; r++ {
		row := y[r*out : (r+1)*out]
		for j, b := range bias {
			row[j] += b
		}
	}
}

// rmsNorm writes y[r] = x[r] / sqrt(mean(x[r]²) + eps) ⊙ w for each row of
// x [N, C]; y may alias x.
func rmsNorm(y, x, w []float32, C int, eps float32) {
	for r := 0; r+C <= len(x); r += C {
		xr, yr := x[r:r+C], y[r:r+C]
		inv := rmsInv(xr, eps)
		for j, v := range xr {
			yr[j] = v * inv * w[j]
		}
	}
}

// rmsInv is 1/sqrt(mean(x²) + eps), accumulated in float64.
func rmsInv(x []float32, eps float32) float32 {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	return float32(1 / math.Sqrt(ss/float64(len(x))+float64(eps)))
}

// rope rotates every head of x [N, nh·D] in place by the angle of its row's
// position pos[r], rotate-half convention: with h = D/2,
// out[j] = x[j]·cos - x[j+h]·sin and out[j+h] = x[j+h]·cos + x[j]·sin.
// cos and sin are [P, D/2] tables from ropeTables. inverse rotates by the
// negative angle (the transpose, used by the backward pass).
func rope(x []float32, nh, D int, pos []int, cos, sin []float32, inverse bool) {
	half := D / 2
	width := nh * D
	for r, p := range pos {
		c, s := cos[p*half:(p+1)*half], sin[p*half:(p+1)*half]
		row := x[r*width : (r+1)*width]
		for h := 0; h < nh; h++ {
			lo, hi := row[h*D:h*D+half], row[h*D+half:(h+1)*D]
			for j := range lo {
				sj := s[j]
				if inverse {
					sj = -sj
				}
				a, b := lo[j], hi[j]
				lo[j] = a*c[j] - b*sj
				hi[j] = b*c[j] + a*sj
			}
		}
	}
}

// sgemm is blas Sgemm on row-major strided matrices: c = alpha·op(a)·op(b)
// + beta·c with op(a) [m, k], op(b) [k, n], c [m, n].
func sgemm(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	tA, tB := blas.NoTrans, blas.NoTrans
	if ta {
		tA = blas.Trans
	}
	if tb {
		tB = blas.Trans
	}
	blas32.Implementation().Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// attendGroup computes causal attention for the G query heads that share
// key/value head kv, for one sequence: q and o are [n, H·D] rows at
// positions p0 … p0+n-1; k and v are [P, K·D] with P ≥ p0+n and hold every
// key and value of the sequence so far. scores is scratch of length ≥ p0+n.
func attendGroup(g geometry, o, q, k, v []float32, n, p0, kv int, scores []float32) {
	impl := blas32.Implementation()
	HD, KD, D := g.H*g.D, g.K*g.D, g.D
	for h := kv * (g.H / g.K); h < (kv+1)*(g.H/g.K); h++ {
		for t := 0; t < n; t++ {
			P := p0 + t + 1
			s := scores[:P]
			at := t*HD + h*D
			// Exact-length x and y: gonum's Sgemv clears all of y when beta is 0.
			impl.Sgemv(blas.NoTrans, P, D, g.scale, k[kv*D:], KD, q[at:at+D], 1, 0, s, 1)
			softmax(s)
			impl.Sgemv(blas.Trans, P, D, 1, v[kv*D:], KD, s, 1, 0, o[at:at+D], 1)
		}
	}
}

// attendBlock computes causal attention for query head h over one whole
// sequence of T rows at positions 0 … T-1: q and o are [T, H·D], k and v
// [T, K·D]; p is scratch of causalBlock·T values. It works a block of
// query rows at a time, start to finish, so the probabilities it holds
// stay small enough for the cache.
func attendBlock(g geometry, o, q, k, v []float32, T, h int, p []float32) {
	HD, KD, D := g.H*g.D, g.K*g.D, g.D
	kv := h / (g.H / g.K)
	for r0 := 0; r0 < T; r0 += causalBlock {
		r1 := min(r0+causalBlock, T)
		blockProbs(g, p, q[h*D:], k[kv*D:], T, r0, r1)
		sgemm(false, false, r1-r0, D, r1, 1, p, T, v[kv*D:], KD, 0, o[r0*HD+h*D:], HD)
	}
}

// causalBlock is the row block of causal attention: a block of rows
// r0..r1 only reads the columns j < r1, which skips almost half the work
// of a full T×T product, and its scratch is causalBlock·T values.
const causalBlock = 64

// blockProbs writes into p, rows of stride T, the attention probabilities
// of query rows r0..r1: row t-r0 holds softmax over j ≤ t of
// scale·q_t·k_j in its first t+1 columns and zeros up to column r1; q and
// k are strided views (row strides H·D and K·D).
func blockProbs(g geometry, p, q, k []float32, T, r0, r1 int) {
	sgemm(false, true, r1-r0, r1, g.D, g.scale, q[r0*g.H*g.D:], g.H*g.D, k, g.K*g.D, 0, p, T)
	for t := r0; t < r1; t++ {
		row := p[(t-r0)*T:]
		softmax(row[:t+1])
		clear(row[t+1 : r1])
	}
}

// softmax replaces x by softmax(x).
func softmax(x []float32) {
	mx := float32(math.Inf(-1))
	for _, v := range x {
		mx = max(mx, v)
	}
	var sum float32
	for j, v := range x {
		e := exp32(v - mx)
		x[j] = e
		sum += e
	}
	inv := 1 / sum
	for j := range x {
		x[j] *= inv
	}
}

// swiglu writes y = silu(gate) ⊙ up, silu(x) = x·sigmoid(x).
func swiglu(y, gate, up []float32) {
	for i, x := range gate {
		y[i] = x / (1 + exp32(-x)) * up[i]
	}
}

// logSumExp returns log Σ exp(x), computed stably in float64.
func logSumExp(x []float32) float64 {
	mx := float32(math.Inf(-1))
	for _, v := range x {
		mx = max(mx, v)
	}
	var sum float64
	for _, v := range x {
		sum += float64(exp32(v - mx))
	}
	return float64(mx) + math.Log(sum)
}

// parallelFor runs fn over [0, n) split into contiguous chunks on up to
// GOMAXPROCS goroutines. It runs inline when there is one chunk or the work
// (n·cost, in rough flops) is too small to pay for goroutines.
func parallelFor(n, cost int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 || n*cost < 1<<15 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// exp32 is exp(x) in float32, within 2 ulp, 0 below −87.33 and +Inf above
// 88.37: x = k·ln2 + r with |r| ≤ ln2/2, exp(r) by the Cephes expf
// polynomial, 2^k from the exponent bits.
func exp32(x float32) float32 {
	switch {
	case x < -87.33: // below the smallest normal float32
		return 0
	case x > 88.37: // 2^k would overflow (true overflow starts at 88.72)
		return float32(math.Inf(1))
	case x != x:
		return x
	}
	kf := x*1.442695041 + 0.5
	if kf < 0 {
		kf -= 1
	}
	k := int32(kf) // round to nearest
	const ln2Hi, ln2Lo = 0.693359375, -2.12194440e-4
	r := x - float32(k)*ln2Hi - float32(k)*ln2Lo
	p := ((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1
	return (p*r*r + r + 1) * math.Float32frombits(uint32(k+127)<<23)
}

// BLASBackend names the BLAS that the model's matrix products use: "gonum"
// (pure Go, the default build) or "openblas" (built with -tags openblas).
func BLASBackend() string { return blasName }
