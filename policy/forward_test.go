package policy

import (
	"math"
	"math/rand"
	"testing"
)

func TestExp32(t *testing.T) {
	cases := []struct {
		name string
		x    float32
	}{
		{"zero", 0}, {"one", 1}, {"negative", -3.3}, {"large", 80.5}, {"tiny", -86.9},
		{"underflow", -100}, {"minus infinity", float32(math.Inf(-1))}, {"overflow", 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkExp32(t, tc.x)
		})
	}
	t.Run("sweep", func(t *testing.T) {
		for x := float32(-90); x < 88.37; x += 0.0137 {
			checkExp32(t, x)
		}
	})
	if v := exp32(float32(math.NaN())); v == v {
		t.Errorf("exp32(NaN) = %g, want NaN", v)
	}
}

// checkExp32 allows a relative error of 3e-7, and 0 below the smallest
// normal float32 and +Inf above the largest.
func checkExp32(t *testing.T, x float32) {
	t.Helper()
	want := math.Exp(float64(x))
	got := float64(exp32(x))
	switch {
	case want < 0x1p-126 && got == 0, want > math.MaxFloat32 && math.IsInf(got, 1), got == want:
	case math.Abs(got-want) > 3e-7*want:
		t.Fatalf("exp32(%g) = %g, want %g", x, got, want)
	}
}

func TestRopeInverse(t *testing.T) {
	const nh, D, T = 3, 8, 5
	cos, sin := ropeTables(T, D, 10000)
	x := make([]float32, T*nh*D)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	y := append([]float32(nil), x...)
	pos := []int{0, 1, 2, 3, 4}
	rope(y, nh, D, pos, cos, sin, false)
	if y[0] != x[0] || y[nh*D+1] == x[nh*D+1] {
		t.Fatalf("position 0 must be unchanged and position 1 rotated")
	}
	rope(y, nh, D, pos, cos, sin, true)
	for i := range x {
		if math.Abs(float64(y[i]-x[i])) > 1e-5 {
			t.Fatalf("inverse rotation: y[%d] = %g, want %g", i, y[i], x[i])
		}
	}
}

// TestGemm checks every transpose combination against a naive product,
// including the long-k weight-gradient shape that is split among workers.
func TestGemm(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	rnd := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	cases := []struct {
		name    string
		ta, tb  bool
		m, n, k int
	}{
		{"NN", false, false, 5, 7, 3},
		{"NT", false, true, 9, 4, 6},
		{"TN", true, false, 6, 5, 8},
		{"TT", true, true, 3, 4, 5},
		{"TN long k", true, false, 24, 16, 1500},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := rnd(tc.m*tc.k), rnd(tc.k*tc.n)
			at := func(i, p int) float32 { // op(a)[i, p]
				if tc.ta {
					return a[p*tc.m+i]
				}
				return a[i*tc.k+p]
			}
			bt := func(p, j int) float32 {
				if tc.tb {
					return b[j*tc.k+p]
				}
				return b[p*tc.n+j]
			}
			y := rnd(tc.m * tc.n) // garbage that beta = 0 must ignore
			gemm(tc.ta, tc.tb, tc.m, tc.n, tc.k, a, b, 0, y)
			for i := 0; i < tc.m; i++ {
				for j := 0; j < tc.n; j++ {
					var want float64
					for p := 0; p < tc.k; p++ {
						want += float64(at(i, p)) * float64(bt(p, j))
					}
					if d := math.Abs(float64(y[i*tc.n+j]) - want); d > 1e-4*math.Sqrt(float64(tc.k)) {
						t.Fatalf("y[%d,%d] = %g, want %g", i, j, y[i*tc.n+j], want)
					}
				}
			}
		})
	}
}
