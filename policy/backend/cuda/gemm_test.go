package cuda

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

func randSlice(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = rng.Float32()*2 - 1
	}
	return x
}

// closeTo checks got against want to float32 rounding of sums of k
// products of values below 1 in magnitude.
func closeTo(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(got[i])) {
			t.Fatalf("%s: value %d is %g, want %g", what, i, got[i], want[i])
		}
	}
}

// TestColMajorGEMM checks the operand swap: the cublasLtMatmul arguments
// ColMajorGEMM computes, run by the column-major definition, give the
// pure-Go backend's row-major MatMul for every pair of transposes, odd
// sizes and both betas.
func TestColMajorGEMM(t *testing.T) {
	ref := cpu.NewGo()
	rng := rand.New(rand.NewSource(1))
	shapes := [][3]int{{1, 1, 1}, {3, 5, 7}, {7, 3, 5}, {5, 7, 3}, {17, 1, 9}, {1, 13, 31}, {33, 29, 65}}
	for i, s := range shapes {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, beta := range []float32{0, 0.5} {
					name := fmt.Sprintf("case %d/%dx%dx%d/ta=%v/tb=%v/beta=%g", i, s[0], s[1], s[2], ta, tb, beta)
					t.Run(name, func(t *testing.T) {
						m, n, k := s[0], s[1], s[2]
						a, b, c0 := randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, m*n)
						want := append([]float32(nil), c0...)
						if err := ref.MatMul(ta, tb, m, n, k, backend.Host(a), backend.Host(b), beta, backend.Host(want)); err != nil {
							t.Fatal(err)
						}
						g := ColMajorGEMM(ta, tb, m, n, k)
						got := append([]float32(nil), c0...)
						if beta == 0 {
							for j := range got {
								got[j] = float32(math.NaN()) // beta 0 must not read C
							}
						}
						if err := EmulateColMajor(g, b, a, beta, got); err != nil {
							t.Fatal(err)
						}
						closeTo(t, "c", got, want, 1e-5)
					})
				}
			}
		}
	}
}

// TestColMajorGEMMArgs pins the arguments themselves for one shape, as
// they would reach cublasLtMatmul.
func TestColMajorGEMMArgs(t *testing.T) {
	cases := []struct {
		ta, tb bool
		want   GEMM
	}{
		{false, false, GEMM{OpN, OpN, 3, 2, 4, Layout{3, 4, 3}, Layout{4, 2, 4}, Layout{3, 2, 3}, true}},
		{true, false, GEMM{OpN, OpT, 3, 2, 4, Layout{3, 4, 3}, Layout{2, 4, 2}, Layout{3, 2, 3}, true}},
		{false, true, GEMM{OpT, OpN, 3, 2, 4, Layout{4, 3, 4}, Layout{4, 2, 4}, Layout{3, 2, 3}, true}},
		{true, true, GEMM{OpT, OpT, 3, 2, 4, Layout{4, 3, 4}, Layout{2, 4, 2}, Layout{3, 2, 3}, true}},
	}
	for i, tc := range cases {
		if got := ColMajorGEMM(tc.ta, tc.tb, 2, 3, 4); got != tc.want {
			t.Errorf("case %d: ta=%v tb=%v: got %+v, want %+v", i, tc.ta, tc.tb, got, tc.want)
		}
		if err := tc.want.Check(); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
}

// TestEmulateColMajorRefuses checks that the emulation refuses what
// cuBLASLt would: inconsistent layouts and short buffers.
func TestEmulateColMajorRefuses(t *testing.T) {
	good := ColMajorGEMM(false, false, 2, 3, 4)
	badK := good
	badK.K = 5
	badLD := good
	badLD.A.LD = 2
	cases := []struct {
		name    string
		g       GEMM
		a, b, c int
	}{
		{"k disagrees", badK, 12, 8, 6},
		{"ld below rows", badLD, 12, 8, 6},
		{"short A", good, 11, 8, 6},
		{"short C", good, 12, 8, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := EmulateColMajor(tc.g, make([]float32, tc.a), make([]float32, tc.b), 0, make([]float32, tc.c))
			if err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestAlignment(t *testing.T) {
	cases := []struct {
		addr uintptr
		want uint32
	}{{0x1000, 256}, {0x1100, 256}, {0x1080, 128}, {0x1004, 4}, {0x1010, 16}, {0x7f0000000040, 64}}
	for i, tc := range cases {
		if got := alignment(tc.addr); got != tc.want {
			t.Errorf("case %d: alignment(%#x) = %d, want %d", i, tc.addr, got, tc.want)
		}
	}
}
