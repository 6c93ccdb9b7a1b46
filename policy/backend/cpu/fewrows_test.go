package cpu

import (
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// TestFewRows checks the decoding product of a few rows with a large
// weight matrix (the fewRows path) against float64 dot products, on
// every backend, with beta 0 and 1.
func TestFewRows(t *testing.T) {
	if !hasAVX2 {
		t.Skip("the few-row kernel needs AVX2")
	}
	const n, k = 1200, 1024 // n·k over fewRowsMinWeights
	rng := rand.New(rand.NewSource(3))
	w := make([]float32, n*k)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	for name, be := range backends(t) {
		for m := 1; m <= 4; m++ {
			for _, beta := range []float32{0, 1} {
				a := make([]float32, m*k)
				for i := range a {
					a[i] = float32(rng.NormFloat64())
				}
				y := make([]float32, m*n)
				for i := range y {
					y[i] = float32(i % 7)
				}
				want := make([]float64, m*n)
				for i := range m {
					for j := range n {
						s := 0.0
						for t := range k {
							s += float64(a[i*k+t]) * float64(w[j*k+t])
						}
						want[i*n+j] = s + float64(beta)*float64(y[i*n+j])
					}
				}
				be.MatMul(false, true, m, n, k, backend.Host(a), backend.Host(w), beta, backend.Host(y))
				for i, g := range y {
					if d := math.Abs(float64(g) - want[i]); d > 1e-3*math.Max(1, math.Abs(want[i])) {
						t.Fatalf("%s m=%d beta=%g: y[%d] = %g, want %g", name, m, beta, i, g, want[i])
					}
				}
			}
		}
	}
}
