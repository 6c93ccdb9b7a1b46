package cpu

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// openBLASOrSkip opens the OpenBLAS backend, skipping the test where the
// library is absent unless ARTIST_BACKEND=openblas demands it.
func openBLASOrSkip(t testing.TB) *Backend {
	t.Helper()
	b, err := OpenOpenBLAS()
	if err != nil {
		if os.Getenv(backend.EnvVar) == "openblas" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return b
}

func TestOpenBLASInfo(t *testing.T) {
	b := openBLASOrSkip(t)
	info := b.Info()
	if info.Name != "openblas" || info.Threads < 1 || info.Core == "" || info.Library == "" {
		t.Errorf("Info() = %+v; want name openblas, threads ≥ 1, a core name and a library", info)
	}
	t.Logf("%v", info)
}

func TestOpenBLASMissingLibrary(t *testing.T) {
	t.Setenv(OpenBLASLibraryEnv, "libopenblas-not-installed.so.0")
	_, err := OpenOpenBLAS()
	if err == nil {
		t.Fatal("OpenOpenBLAS loaded a library that does not exist")
	}
	for _, want := range []string{"openblas: ", "libopenblas-not-installed.so.0", "apt-get install libopenblas0-pthread", "ARTIST_BACKEND=go"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestOpenBLASMatchesGonum compares the overridden routines with gonum on
// strided views in every transpose combination.
func TestOpenBLASMatchesGonum(t *testing.T) {
	ob := openBLASOrSkip(t).blas
	gn := gonum.Implementation{}
	rng := rand.New(rand.NewSource(1))
	rnd := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	const m, n, k, pad = 7, 5, 6, 3
	const vm, vn = 150, 120 // Sgemv large enough for the library
	name := map[blas.Transpose]string{blas.NoTrans: "N", blas.Trans: "T"}
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
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
		t.Run("Sgemv"+name[tA], func(t *testing.T) {
			a, x, y := rnd(vm*(vn+pad)), rnd(vm+vn), rnd(vm+vn+pad)
			want := append([]float32(nil), y...)
			ob.Sgemv(tA, vm, vn, 0.7, a, vn+pad, x, 1, 0.4, y, 1)
			gn.Sgemv(tA, vm, vn, 0.7, a, vn+pad, x, 1, 0.4, want, 1)
			ly := vm
			if tA == blas.Trans {
				ly = vn
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
	t.Run("Dgemm", func(t *testing.T) {
		a, b, c := make([]float64, m*k), make([]float64, n*k), make([]float64, m*n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		want := make([]float64, m*n)
		ob.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, b, k, 0, c, n)
		gn.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a, k, b, k, 0, want, n)
		for i := range c {
			if math.Abs(c[i]-want[i]) > 1e-12 {
				t.Fatalf("element %d: got %g, want %g", i, c[i], want[i])
			}
		}
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

// BenchmarkSgemmCall measures the cost of one small product, where the
// call itself dominates: gonum in Go, OpenBLAS through dlopen.
func BenchmarkSgemmCall(b *testing.B) {
	for _, tc := range []struct {
		name string
		impl func(testing.TB) blas.Float32
	}{
		{"gonum", func(testing.TB) blas.Float32 { return gonum.Implementation{} }},
		{"openblas", func(tb testing.TB) blas.Float32 { return openBLASOrSkip(tb).blas }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			impl := tc.impl(b)
			x, y, z := make([]float32, 16), make([]float32, 16), make([]float32, 16)
			for b.Loop() {
				impl.Sgemm(blas.NoTrans, blas.NoTrans, 4, 4, 4, 1, x, 4, y, 4, 0, z, 4)
			}
		})
	}
}

// BenchmarkMatMul times products of the Qwen2.5-0.5B MLP's shapes (512
// rows) on each backend, and on gonum's Sgemm as it is; GFLOP/s counts
// 2·m·n·k.
func BenchmarkMatMul(b *testing.B) {
	for _, tc := range []struct {
		name    string
		ta, tb  bool
		m, n, k int
	}{
		{"x·Wᵀ 512x4864x896", false, true, 512, 4864, 896},
		{"dy·W 512x896x4864", false, false, 512, 896, 4864},
		{"dyᵀ·x 4864x896x512", true, false, 4864, 896, 512},
	} {
		for _, name := range []string{"gonum", "go", "openblas"} {
			b.Run(name+"/"+tc.name, func(b *testing.B) {
				be := NewGo()
				switch name {
				case "gonum":
					be.blas = goBLAS{}.Implementation
				case "openblas":
					be = openBLASOrSkip(b)
				}
				x, y, z := make([]float32, tc.m*tc.k), make([]float32, tc.k*tc.n), make([]float32, tc.m*tc.n)
				for i := range x {
					x[i] = float32(i%13) / 13
				}
				for i := range y {
					y[i] = float32(i%7) / 7
				}
				for b.Loop() {
					be.MatMul(tc.ta, tc.tb, tc.m, tc.n, tc.k, backend.Host(x), backend.Host(y), 0, backend.Host(z))
				}
				b.ReportMetric(2*float64(tc.m*tc.n*tc.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestOpenBLASCoreType checks, each in a fresh process (OpenBLAS picks its
// kernels once, as it loads), that a CPU with AVX2 and FMA gets
// OpenBLASCoreType when OPENBLAS_CORETYPE is not set, that a value the
// user sets wins, and that the variable does not outlive the load.
func TestOpenBLASCoreType(t *testing.T) {
	openBLASOrSkip(t)
	if !hasFMA {
		t.Skip("no AVX2 and FMA on this CPU: OpenBLAS chooses its kernels itself")
	}
	tests := []struct{ env, want string }{
		{"", OpenBLASCoreType},
		{"Prescott", "Prescott"},
	}
	for _, tc := range tests {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpenBLASCoreTypeChild$")
		cmd.Env = append(os.Environ(), "ARTIST_CORETYPE_CHILD=1")
		cmd.Env = slices.DeleteFunc(cmd.Env, func(kv string) bool { return strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") })
		if tc.env != "" {
			cmd.Env = append(cmd.Env, "OPENBLAS_CORETYPE="+tc.env)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("OPENBLAS_CORETYPE=%q: %v\n%s", tc.env, err, out)
		}
		want := fmt.Sprintf("core=%s env=%s;", tc.want, tc.env)
		if !strings.Contains(string(out), want) {
			t.Errorf("OPENBLAS_CORETYPE=%q: child printed %q, want %q", tc.env, out, want)
		}
	}
}

// TestOpenBLASCoreTypeChild is TestOpenBLASCoreType's fresh process.
func TestOpenBLASCoreTypeChild(t *testing.T) {
	if os.Getenv("ARTIST_CORETYPE_CHILD") == "" {
		t.Skip("run by TestOpenBLASCoreType")
	}
	b, err := OpenOpenBLAS()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("core=%s env=%s;\n", b.Info().Core, os.Getenv("OPENBLAS_CORETYPE"))
}
