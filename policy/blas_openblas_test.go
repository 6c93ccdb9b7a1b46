//go:build openblas

package policy

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestOpenBLASInstalled(t *testing.T) {
	if _, ok := blas32.Implementation().(openBLAS); !ok || BLASBackend() != "openblas" {
		t.Fatalf("blas32 uses %T, backend %q", blas32.Implementation(), BLASBackend())
	}
}

// TestOpenBLASMatchesGonum compares the overridden routines with gonum on
// strided views in every transpose combination.
func TestOpenBLASMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	rnd := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	const m, n, k, pad = 7, 5, 6, 3
	ob, gn := openBLAS{}, gonum.Implementation{}
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			name := map[blas.Transpose]string{blas.NoTrans: "N", blas.Trans: "T"}
			t.Run("Sgemm"+name[tA]+name[tB], func(t *testing.T) {
				ar, ac := m, k
				if tA == blas.Trans {
					ar, ac = k, m
				}
				br, bc := k, n
				if tB == blas.Trans {
					br, bc = n, k
				}
				a, b, c := rnd(ar*(ac+pad)), rnd(br*(bc+pad)), rnd(m*(n+pad))
				want := append([]float32(nil), c...)
				ob.Sgemm(tA, tB, m, n, k, 0.7, a, ac+pad, b, bc+pad, 0.3, c, n+pad)
				gn.Sgemm(tA, tB, m, n, k, 0.7, a, ac+pad, b, bc+pad, 0.3, want, n+pad)
				closeTo(t, c, want)
			})
		}
		t.Run("Sgemv"+map[blas.Transpose]string{blas.NoTrans: "N", blas.Trans: "T"}[tA], func(t *testing.T) {
			a, x, y := rnd(m*(n+pad)), rnd(m+n), rnd(m+n+pad)
			want := append([]float32(nil), y...)
			ob.Sgemv(tA, m, n, 0.7, a, n+pad, x, 1, 0, y, 1)
			gn.Sgemv(tA, m, n, 0.7, a, n+pad, x, 1, 0, want, 1)
			ly := m
			if tA == blas.Trans {
				ly = n
			}
			closeTo(t, y[:ly], want[:ly])
		})
	}
	t.Run("Sger", func(t *testing.T) {
		a, x, y := rnd(m*(n+pad)), rnd(m), rnd(n)
		want := append([]float32(nil), a...)
		ob.Sger(m, n, 0.7, x, 1, y, 1, a, n+pad)
		gn.Sger(m, n, 0.7, x, 1, y, 1, want, n+pad)
		closeTo(t, a, want)
	})
}

func closeTo(t *testing.T, got, want []float32) {
	t.Helper()
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			t.Fatalf("element %d: got %g, want %g", i, got[i], want[i])
		}
	}
}
