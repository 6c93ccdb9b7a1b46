package cpu

// A matrix product whose rows do not depend on one another, for decoding
// many sequences in one step with the same numbers as decoding each alone.

import "github.com/artist-rl/artist/policy/backend"

// rowsBlockBytes bounds the block of w that LinearRows works through
// before moving on (it stays in the second-level cache while every row
// of a meets it).
const rowsBlockBytes = 128 << 10

// LinearRows computes y [m, n] = a·wᵀ for a [m, k] and w [n, k]. Every
// element is one dot product of a row of a with a row of w, computed the
// same way whatever m is, wherever the row sits in a and whatever the
// other rows hold, so a row of y is the same bit for bit alone or among
// others: sequences decoded together get the logits they get alone.
//
// The rows go in groups of four (zero rows added to the last). On a CPU
// with AVX2 and FMA, and k a multiple of 8, each group meets w three rows
// at a time (rows4x3FMA): eight lanes of fused multiply-adds, the lanes
// added up in a fixed order; with AVX-512 and k a multiple of 16, sixteen
// lanes (rows4x3AVX512). Otherwise each group meets w one row at a time
// (dot4): eight lanes of products then sums (no fused multiply-add),
// added up in the same order, in AVX2 or portable Go with the same
// results. The three ways differ by float32 rounding, so a row's numbers
// are the same on every machine of one kind, not across kinds; on one
// machine they depend only on the row, w and k.
func (b *Backend) LinearRows(m, n, k int, a, w, y backend.Tensor) error {
	if err := onHost("LinearRows", a, w, y); err != nil {
		return err
	}
	aa, ww, yy := host(a)[:m*k], host(w)[:n*k], host(y)[:m*n]
	if m == 0 || n == 0 {
		return nil
	}
	if k == 0 {
		clear(yy)
		return nil
	}
	groups := (m + 3) / 4
	x := aa // [4·groups, k]: a, zero rows added
	if m%4 != 0 {
		x = make([]float32, 4*groups*k)
		copy(x, aa)
	}
	block := max(3, rowsBlockBytes/(4*k)/3*3)
	blocks := (n + block - 1) / block
	parallelFor(blocks, 2*block*k*m, func(lo, hi int) {
		for bl := lo; bl < hi; bl++ {
			j0, j1 := bl*block, min((bl+1)*block, n)
			for g := range groups {
				rowsBlock(k, x[4*g*k:4*(g+1)*k], ww, j0, j1, yy[4*g*n:], n, min(4, m-4*g))
			}
		}
	})
	return nil
}

// rowsBlock sets y[r·n+j] = x_r·w_j for the rows r < rows of the group
// x [4, k] and the rows j0 ≤ j < j1 of w [·, k], each element as
// LinearRows says: the kernel that computes it depends only on k.
func rowsBlock(k int, x, w []float32, j0, j1 int, y []float32, n, rows int) {
	if hasFMA && k%8 == 0 {
		kernel := rows4x3FMA
		if hasAVX512 && k%16 == 0 {
			kernel = rows4x3AVX512
		}
		var out [12]float32 // [4, 3]
		for j := j0; j < j1; {
			cols, ldw := 3, k
			if j+3 > j1 {
				cols, ldw = 1, 0 // the last one or two rows of w, one at a time
			}
			kernel(k, &x[0], &w[j*k], ldw, &out[0])
			for r := range rows {
				copy(y[r*n+j:r*n+j+cols], out[3*r:3*r+cols])
			}
			j += cols
		}
		return
	}
	var out [4]float32
	for j := j0; j < j1; j++ {
		dot4(k, x, w[j*k:(j+1)*k], &out)
		for r := range rows {
			y[r*n+j] = out[r]
		}
	}
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
