package cpu

// A matrix product whose rows do not depend on one another, for decoding
// many sequences in one step with the same numbers as decoding each alone.

import "github.com/artist-rl/artist/policy/backend"

// rowsBlockBytes bounds the block of w that LinearRows works through
// before moving on (it stays in the second-level cache while every row
// of a meets it).
const rowsBlockBytes = 128 << 10

// LinearRows computes y [m, n] = a·wᵀ for a [m, k] and w [n, k]. Every
// element is one dot product of a row of a with a row of w, summed in
// eight lanes of products then sums (no fused multiply-add) and the lanes
// added up in a fixed order, so a row of y is the same bit for bit
// whatever m is, wherever the row sits in a and whatever the other rows
// hold: sequences decoded together get the logits they get alone. With
// AVX2 and k a multiple of 8 it runs the few-row kernel (dot4AVX2) on
// groups of four rows, reading w once per call; otherwise portable Go
// with the same operations in the same order.
func (b *Backend) LinearRows(m, n, k int, a, w, y backend.Tensor) {
	aa, ww, yy := host(a)[:m*k], host(w)[:n*k], host(y)[:m*n]
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		clear(yy)
		return
	}
	groups := (m + 3) / 4
	x := aa // [4·groups, k]: a, zero rows added
	if m%4 != 0 {
		x = make([]float32, 4*groups*k)
		copy(x, aa)
	}
	block := max(1, rowsBlockBytes/(4*k))
	blocks := (n + block - 1) / block
	parallelFor(blocks, 2*block*k*m, func(lo, hi int) {
		var out [4]float32
		for bl := lo; bl < hi; bl++ {
			j0, j1 := bl*block, min((bl+1)*block, n)
			for g := range groups {
				xg := x[4*g*k : 4*(g+1)*k]
				rows := min(4, m-4*g)
				for j := j0; j < j1; j++ {
					dot4(k, xg, ww[j*k:(j+1)*k], &out)
					for r := range rows {
						yy[(4*g+r)*n+j] = out[r]
					}
				}
			}
		}
	})
}

// dot4 sets out[r] = Σ_t x[r·k+t]·w[t] for the four rows of x [4, k] as
// dot4AVX2 sums them: lane t mod 8 collects products in order, then the
// lanes are added as (l0+l4 + l1+l5) + (l2+l6 + l3+l7).
func dot4(k int, x, w []float32, out *[4]float32) {
	if hasAVX2 && k%8 == 0 {
		dot4AVX2(k, &x[0], &w[0], &out[0])
		return
	}
	for r := range 4 {
		var lane [8]float32
		row := x[r*k : (r+1)*k]
		for t, v := range w {
			lane[t%8] += float32(row[t] * v) // the conversion forbids a fused multiply-add
		}
		s := [4]float32{lane[0] + lane[4], lane[1] + lane[5], lane[2] + lane[6], lane[3] + lane[7]}
		out[r] = (s[0] + s[1]) + (s[2] + s[3])
	}
}
