package cpu

import (
	"math"
	"math/rand"
	"testing"
)

// TestExpSlice: the eight-lane exponential gives Exp32's bits exactly, on
// a sweep of the whole range, random values, special values and lengths
// that leave a tail.
func TestExpSlice(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var x []float32
	for v := float32(-100); v < 100; v += 0.00731 {
		x = append(x, v)
	}
	for range 100000 {
		x = append(x, float32(rng.NormFloat64()*30), math.Float32frombits(rng.Uint32()))
	}
	x = append(x, 0, float32(math.Copysign(0, -1)), -87.33, -87.3299, 88.37, 88.3701, -0.5, 0.5,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-30, -1e-30, 1, 2, 3)
	for _, n := range []int{len(x), len(x) - 3, 7, 1, 0} {
		got := append([]float32(nil), x[:n]...)
		expSlice(got)
		for i, v := range x[:n] {
			want := Exp32(v)
			if math.Float32bits(got[i]) != math.Float32bits(want) && !(want != want && got[i] != got[i]) {
				t.Fatalf("n %d: expSlice(%g) = %g (%#x), Exp32 = %g (%#x)", n, v, got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
		}
	}
	t.Logf("AVX2: %v", hasAVX2)
}

func BenchmarkExp(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i%200) / 20
	}
	y := make([]float32, len(x))
	b.Run("Exp32", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				y[i] = Exp32(-v)
			}
		}
		b.ReportMetric(float64(len(x)*b.N)/b.Elapsed().Seconds()/1e6, "Mexp/s")
	})
	b.Run("expSlice", func(b *testing.B) {
		for b.Loop() {
			for i, v := range x {
				y[i] = -v
			}
			expSlice(y)
		}
		b.ReportMetric(float64(len(x)*b.N)/b.Elapsed().Seconds()/1e6, "Mexp/s")
	})
}
