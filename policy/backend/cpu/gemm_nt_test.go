package cpu

import (
	"math"
	"math/rand"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// aligned16 returns n floats starting on a 16-byte boundary, plus off
// more floats before them (off 0: aligned rows for ntFits; off 1-3:
// rows that gonum trims, which ntFits refuses).
func aligned16(n, off int) []float32 {
	buf := make([]float32, n+off+4)
	s := (16 - int(uintptr(unsafe.Pointer(&buf[0]))%16)) % 16 / 4
	return buf[s+off : s+off+n]
}

// TestSgemmNTIsGonum: a·bᵀ through the pure-Go backend gives gonum's
// bits on the shapes the dot tile takes (gonum's serial path over all of
// k and its parallel path in 64-blocks, k not a multiple of 64, tail
// rows and an odd column count, strided views, beta 0, 1 and other) and
// on those it hands on (k not a multiple of 16, unaligned b, alpha ≠ 1),
// with signed zeros, infinities and NaNs.
func TestSgemmNTIsGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	fill := func(x []float32, specials bool) {
		for i := range x {
			x[i] = float32(rng.NormFloat64())
			if specials && rng.Float64() < 0.02 {
				x[i] = special[rng.Intn(len(special))]
			}
		}
	}
	mine, ref := goBLAS{}, gonum.Implementation{}
	tiled := 0
	for _, sz := range [][3]int{
		{4, 2, 16}, {8, 6, 64}, {5, 3, 48}, {64, 130, 96}, {64, 64, 896},
		{130, 70, 208}, {256, 100, 320}, {67, 129, 64}, {12, 300, 128}, {9, 9, 40}, {16, 16, 100},
	} {
		for _, bOff := range []int{0, 1} {
			for _, ab := range [][2]float32{{1, 0}, {1, 1}, {1, -0.5}, {0.5, 0}} {
				for _, specials := range []bool{false, true} {
					m, n, k := sz[0], sz[1], sz[2]
					pad := 4 * rng.Intn(2)
					lda, ldb, ldc := k+rng.Intn(3), k+pad, n+rng.Intn(3)
					a, b, c := make([]float32, m*lda), aligned16(n*ldb, bOff), make([]float32, m*ldc)
					fill(a, specials)
					fill(b, specials)
					fill(c, false)
					want := append([]float32(nil), c...)
					if ntFits(blas.NoTrans, blas.Trans, m, n, k, ab[0], a, lda, b, ldb, c, ldc) {
						tiled++
					}
					mine.Sgemm(blas.NoTrans, blas.Trans, m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
					ref.Sgemm(blas.NoTrans, blas.Trans, m, n, k, ab[0], a, lda, b, ldb, ab[1], want, ldc)
					for i := range c {
						if math.Float32bits(c[i]) != math.Float32bits(want[i]) && !(c[i] != c[i] && want[i] != want[i]) {
							t.Fatalf("m %d n %d k %d b offset %d alpha %g beta %g: c[%d] = %g (%#x), gonum %g (%#x)",
								m, n, k, bOff, ab[0], ab[1], i, c[i], math.Float32bits(c[i]), want[i], math.Float32bits(want[i]))
						}
					}
				}
			}
		}
	}
	if hasAVX2 && tiled == 0 {
		t.Fatal("no case took the dot tile")
	}
	t.Logf("%d cases through the dot tile, AVX2 %v", tiled, hasAVX2)
}

// TestDotUnitaryPortable: the tails' portable dot is the tile's, bit for
// bit, on lengths that are multiples of 16.
func TestDotUnitaryPortable(t *testing.T) {
	if !hasAVX2 {
		t.Skip("the tile needs AVX2; the portable dot is then the only one")
	}
	rng := rand.New(rand.NewSource(3))
	for _, k := range []int{16, 32, 48, 64, 80, 896} {
		a, b := aligned16(4*k, 0), aligned16(2*k, 0)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		var c [8]float32
		ntTile4x2(1, k, &a[0], k, &b[0], k, &c[0], 2)
		for r := range 4 {
			for s := range 2 {
				if d := dotUnitary(a[r*k:(r+1)*k], b[s*k:(s+1)*k]); math.Float32bits(d) != math.Float32bits(c[2*r+s]) {
					t.Fatalf("k %d row %d col %d: portable %g, tile %g", k, r, s, d, c[2*r+s])
				}
			}
		}
	}
}
