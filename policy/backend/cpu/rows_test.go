package cpu

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// TestLinearRows checks LinearRows against float64 dot products, and that
// each row of the result is bit for bit the row computed alone, for
// shapes on the AVX2 kernel (k a multiple of 8) and off it.
func TestLinearRows(t *testing.T) {
	cases := []struct{ m, n, k int }{{1, 5, 8}, {3, 70, 64}, {9, 300, 96}, {33, 41, 1024}, {6, 17, 13}, {5, 4, 3}}
	be := NewGo()
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%dx%dx%d", tc.m, tc.n, tc.k), func(t *testing.T) {
			rng := rand.New(rand.NewSource(int64(tc.m*tc.n + tc.k)))
			a, w := randSlice(rng, tc.m*tc.k), randSlice(rng, tc.n*tc.k)
			y := make([]float32, tc.m*tc.n)
			be.LinearRows(tc.m, tc.n, tc.k, backend.Host(a), backend.Host(w), backend.Host(y))
			for i := range tc.m {
				one := make([]float32, tc.n)
				be.LinearRows(1, tc.n, tc.k, backend.Host(a[i*tc.k:(i+1)*tc.k]), backend.Host(w), backend.Host(one))
				for j := range tc.n {
					s := 0.0
					for l := range tc.k {
						s += float64(a[i*tc.k+l]) * float64(w[j*tc.k+l])
					}
					got := y[i*tc.n+j]
					if math.Abs(float64(got)-s) > 1e-4*math.Max(1, math.Abs(s)) {
						t.Fatalf("y[%d][%d] = %g, want %g", i, j, got, s)
					}
					if got != one[j] {
						t.Fatalf("y[%d][%d] = %g among %d rows, %g alone", i, j, got, tc.m, one[j])
					}
				}
			}
		})
	}
}

// TestLinearRowsPortable: the portable sums equal the AVX2 kernel's.
func TestLinearRowsPortable(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 kernel to compare with")
	}
	rng := rand.New(rand.NewSource(9))
	const k = 136
	x, w := randSlice(rng, 4*k), randSlice(rng, k)
	var fast, slow [4]float32
	dot4AVX2(k, &x[0], &w[0], &fast[0])
	for r := range 4 {
		var lane [8]float32
		for t := range k {
			lane[t%8] += float32(x[r*k+t] * w[t])
		}
		s := [4]float32{lane[0] + lane[4], lane[1] + lane[5], lane[2] + lane[6], lane[3] + lane[7]}
		slow[r] = (s[0] + s[1]) + (s[2] + s[3])
	}
	if fast != slow {
		t.Errorf("dot4AVX2 %v, portable %v", fast, slow)
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(rng.NormFloat64())
	}
	return out
}
