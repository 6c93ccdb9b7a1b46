package cpu

import (
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// backends returns the pure-Go backend and, where the library is
// installed, the OpenBLAS one.
func backends(t *testing.T) map[string]*Backend {
	t.Helper()
	out := map[string]*Backend{"go": NewGo()}
	if b, err := OpenOpenBLAS(); err == nil {
		out["openblas"] = b
	} else {
		t.Logf("openblas: %v", err)
	}
	return out
}

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
	if v := Exp32(float32(math.NaN())); v == v {
		t.Errorf("Exp32(NaN) = %g, want NaN", v)
	}
}

// checkExp32 allows a relative error of 3e-7, and 0 below the smallest
// normal float32 and +Inf above the largest.
func checkExp32(t *testing.T, x float32) {
	t.Helper()
	want := math.Exp(float64(x))
	got := float64(Exp32(x))
	switch {
	case want < 0x1p-126 && got == 0, want > math.MaxFloat32 && math.IsInf(got, 1), got == want:
	case math.Abs(got-want) > 3e-7*want:
		t.Fatalf("Exp32(%g) = %g, want %g", x, got, want)
	}
}

func TestRopeInverse(t *testing.T) {
	const nh, D, T = 3, 8, 5
	cos, sin := make([]float32, T*D/2), make([]float32, T*D/2)
	for p := 0; p < T; p++ {
		for j := 0; j < D/2; j++ {
			a := float64(p) * math.Pow(10000, -float64(2*j)/D)
			cos[p*D/2+j], sin[p*D/2+j] = float32(math.Cos(a)), float32(math.Sin(a))
		}
	}
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

// TestMatMul checks every transpose combination against a naive product,
// including the long-k weight-gradient shape that is split among workers,
// on every backend.
func TestMatMul(t *testing.T) {
	for name, be := range backends(t) {
		t.Run(name, func(t *testing.T) { testMatMul(t, be) })
	}
}

func testMatMul(t *testing.T, be *Backend) {
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
		beta    float32
	}{
		{"NN", false, false, 5, 7, 3, 0},
		{"NT", false, true, 9, 4, 6, 0},
		{"TN", true, false, 6, 5, 8, 0},
		{"TT", true, true, 3, 4, 5, 0},
		{"TN long k", true, false, 24, 16, 1500, 0},
		{"NT accumulate", false, true, 9, 4, 6, 1},
		// Products large enough to be split among goroutines.
		{"NN split rows", false, false, 160, 64, 128, 0},
		{"TN split rows", true, false, 200, 48, 128, 0},
		{"NT split columns", false, true, 40, 256, 128, 1},
		{"TT split columns", true, true, 48, 200, 128, 0.5},
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
			y0 := append([]float32(nil), y...)
			be.MatMul(tc.ta, tc.tb, tc.m, tc.n, tc.k, backend.Host(a), backend.Host(b), tc.beta, backend.Host(y))
			for i := 0; i < tc.m; i++ {
				for j := 0; j < tc.n; j++ {
					want := float64(tc.beta) * float64(y0[i*tc.n+j])
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

// TestAdamW checks the update against its formula, element by element and
// bit for bit, on a tensor long enough to be split among goroutines,
// with parts of a length the vector kernel does not divide.
func TestAdamW(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const n = 10003
	p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range p {
		p[i], g[i], m[i], v[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())/10, float32(rng.Float64())/10
	}
	s := backend.AdamWStep{Scale: 0.5, Decay: 0.999, StepSize: 1e-3, RootBC2: 0.3, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8}
	wp, wm, wv := append([]float32(nil), p...), append([]float32(nil), m...), append([]float32(nil), v...)
	for j := range wp {
		gj := g[j] * s.Scale
		wm[j] = s.Beta1*wm[j] + (1-s.Beta1)*gj
		wv[j] = s.Beta2*wv[j] + (1-s.Beta2)*gj*gj
		wp[j] = wp[j]*s.Decay - s.StepSize*wm[j]/(float32(math.Sqrt(float64(wv[j])))/s.RootBC2+s.Eps)
	}
	for name, be := range backends(t) {
		t.Run(name, func(t *testing.T) {
			pp, mm, vv := append([]float32(nil), p...), append([]float32(nil), m...), append([]float32(nil), v...)
			be.AdamW(backend.Host(pp), backend.Host(g), backend.Host(mm), backend.Host(vv), s)
			for j := range pp {
				if pp[j] != wp[j] || mm[j] != wm[j] || vv[j] != wv[j] {
					t.Fatalf("element %d: p, m, v = %g, %g, %g; want %g, %g, %g", j, pp[j], mm[j], vv[j], wp[j], wm[j], wv[j])
				}
			}
		})
	}
}

// BenchmarkAdamW times the AdamW kernel on 64M weights already in
// memory (the update's seven float32 streams, 28 bytes a weight), with
// the AVX2 kernel and with the portable loop, in weights/s and GB/s.
func BenchmarkAdamW(b *testing.B) {
	const n = 64 << 20
	p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range p {
		p[i], g[i] = float32(i%97)/97, float32(i%89)/89-0.5
	}
	be := NewGo()
	s := backend.AdamWStep{Scale: 1, Decay: 0.9999, StepSize: 1e-4, RootBC2: 0.1, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8}
	update := func() {
		if err := be.AdamW(backend.Host(p), backend.Host(g), backend.Host(m), backend.Host(v), s); err != nil {
			b.Fatal(err)
		}
	}
	update() // the moments' first touch, outside the timings
	defer func(v bool) { hasAVX2 = v }(hasAVX2)
	for _, side := range []struct {
		name string
		avx2 bool
	}{{"avx2", hasAVX2}, {"portable", false}} {
		b.Run(side.name, func(b *testing.B) {
			hasAVX2 = side.avx2
			for b.Loop() {
				update()
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(n/sec/1e9, "Gweights/s")
			b.ReportMetric(28*n/sec/1e9, "GB/s")
		})
	}
}

// TestMul checks y = a ⊙ b element by element, into a third tensor and
// in place over either input, and the error for lengths that differ.
func TestMul(t *testing.T) {
	a, b := []float32{1, -2, 0.5, 3}, []float32{4, 0.25, -2, 0}
	want := []float32{4, -0.5, -1, 0}
	be := NewGo()
	for _, tc := range []struct {
		name string
		y    func(a, b []float32) []float32
	}{
		{"apart", func([]float32, []float32) []float32 { return make([]float32, 4) }},
		{"into a", func(a, _ []float32) []float32 { return a }},
		{"into b", func(_, b []float32) []float32 { return b }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			aa, bb := append([]float32(nil), a...), append([]float32(nil), b...)
			y := tc.y(aa, bb)
			if err := be.Mul(backend.Host(y), backend.Host(aa), backend.Host(bb)); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if y[i] != want[i] {
					t.Errorf("y[%d] = %g, want %g", i, y[i], want[i])
				}
			}
		})
	}
	if err := be.Mul(backend.Host(make([]float32, 3)), backend.Host(a), backend.Host(b)); err == nil {
		t.Error("Mul into 3 values of 4 by 4 gave no error")
	}
}
