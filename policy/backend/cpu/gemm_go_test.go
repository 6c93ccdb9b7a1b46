package cpu

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestGoSgemmIsGonum: the pure-Go backend's Sgemm gives gonum's bits in
// every case it handles itself and in those it hands on: shapes around
// the tile sizes, both layouts of a, strided and unaligned views, alpha
// and beta that skip or scale, zeros that gonum skips, and signed zeros,
// infinities and NaNs.
func TestGoSgemmIsGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	fill := func(n int, zeros, specials bool) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			switch r := rng.Float64(); {
			case zeros && r < 0.2:
				x[i] = 0
			case specials && r < 0.23:
				x[i] = special[rng.Intn(len(special))]
			}
		}
		return x
	}
	mine, ref := goBLAS{}, gonum.Implementation{}
	cases := 0
	defer func(v bool) { hasAVX512 = v }(hasAVX512)
	for _, wide := range []bool{hasAVX512, false} { // the AVX-512 kernel, then the AVX2 one
		hasAVX512 = wide
		for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				for _, sz := range [][3]int{{4, 16, 1}, {7, 33, 5}, {64, 176, 64}, {130, 40, 300}, {3, 20, 9}, {9, 15, 4}, {96, 16, 260}, {8, 100, 33}} {
					for _, ab := range [][2]float32{{1, 0}, {1, 1}, {-0.7, 0.5}, {0, 0.5}, {0, 1}} {
						for _, specials := range []bool{false, true} {
							m, n, k := sz[0], sz[1], sz[2]
							pad, off := rng.Intn(3), rng.Intn(3)
							ar, ac := m, k
							if tA == blas.Trans {
								ar, ac = k, m
							}
							br, bc := k, n
							if tB == blas.Trans {
								br, bc = n, k
							}
							a := fill(off+ar*(ac+pad), true, specials)[off:]
							b := fill(br*(bc+pad), false, specials)
							c := fill(off+m*(n+pad), false, specials)[off:]
							want := append([]float32(nil), c...)
							mine.Sgemm(tA, tB, m, n, k, ab[0], a, ac+pad, b, bc+pad, ab[1], c, n+pad)
							ref.Sgemm(tA, tB, m, n, k, ab[0], a, ac+pad, b, bc+pad, ab[1], want, n+pad)
							for i := range c {
								if math.Float32bits(c[i]) != math.Float32bits(want[i]) && !(c[i] != c[i] && want[i] != want[i]) {
									t.Fatalf("tA %v tB %v m %d n %d k %d alpha %g beta %g: c[%d] = %g (%#x), gonum %g (%#x)",
										tA, tB, m, n, k, ab[0], ab[1], i, c[i], math.Float32bits(c[i]), want[i], math.Float32bits(want[i]))
								}
							}
							cases++
						}
					}
				}
			}
		}
	}
	t.Logf("%d cases, AVX2 %v", cases, hasAVX2)
}
