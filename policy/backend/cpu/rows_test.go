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

// TestLinearRowsInvariant: for random shapes (m up to 40 rows, k a
// multiple of 8 or not, n with every remainder by the kernel's three
// columns and past one block of w), every row of y is bit for bit the
// row computed alone and the row computed at another place among other
// rows.
func TestLinearRowsInvariant(t *testing.T) {
	be := NewGo()
	rng := rand.New(rand.NewSource(24))
	for trial := range 40 {
		m, n := 1+rng.Intn(40), 1+rng.Intn(120)
		k := 8 * (1 + rng.Intn(160))
		if trial%4 == 3 {
			k = 1 + rng.Intn(300)
		}
		a, w := randSlice(rng, m*k), randSlice(rng, n*k)
		y := make([]float32, m*n)
		be.LinearRows(m, n, k, backend.Host(a), backend.Host(w), backend.Host(y))
		// The rows of a reversed, after other random rows.
		pad := rng.Intn(7)
		b := randSlice(rng, (pad+m)*k)
		for i := range m {
			copy(b[(pad+m-1-i)*k:(pad+m-i)*k], a[i*k:(i+1)*k])
		}
		yb := make([]float32, (pad+m)*n)
		be.LinearRows(pad+m, n, k, backend.Host(b), backend.Host(w), backend.Host(yb))
		one := make([]float32, n)
		for i := range m {
			be.LinearRows(1, n, k, backend.Host(a[i*k:(i+1)*k]), backend.Host(w), backend.Host(one))
			moved := yb[(pad+m-1-i)*n : (pad+m-i)*n]
			for j := range n {
				if got := y[i*n+j]; got != one[j] || got != moved[j] {
					t.Fatalf("trial %d (m %d, n %d, k %d): y[%d][%d] = %g among %d rows, %g alone, %g as row %d of %d",
						trial, m, n, k, i, j, got, m, one[j], moved[j], pad+m-1-i, pad+m)
				}
			}
		}
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

// BenchmarkLinearRows times LinearRows at the decoding shapes of the
// tiny model's MLP and of Qwen2.5-0.5B's (hidden 896, MLP 4864), for 1,
// 8 and 32 rows, in GFLOP/s (2·m·n·k per call).
func BenchmarkLinearRows(b *testing.B) {
	be := NewGo()
	for _, sh := range []struct{ n, k int }{{176, 64}, {4864, 896}} {
		for _, m := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("m%d_n%d_k%d", m, sh.n, sh.k), func(b *testing.B) {
				rng := rand.New(rand.NewSource(1))
				a, w := randSlice(rng, m*sh.k), randSlice(rng, sh.n*sh.k)
				y := make([]float32, m*sh.n)
				for b.Loop() {
					be.LinearRows(m, sh.n, sh.k, backend.Host(a), backend.Host(w), backend.Host(y))
				}
				b.ReportMetric(2*float64(m*sh.n*sh.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
