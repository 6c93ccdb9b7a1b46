//go:build unix

package cuda

import (
	"fmt"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// openGPUOrSkip returns the real backend, skipping without a GPU. The
// tests that use it are the device check: on a GPU machine,
// go test -run GPU -bench GPU ./policy/backend/cuda/ (or the test binary
// built with go test -c, run with -test.run GPU -test.bench GPU).
func openGPUOrSkip(tb testing.TB) *Backend {
	tb.Helper()
	b, err := Open()
	if err != nil {
		tb.Skipf("no GPU: %v", err)
	}
	return b
}

// TestGPUKernels runs every kernel case, and MatMul on sizes that are
// not multiples of anything, on the GPU against the pure-Go backend.
func TestGPUKernels(t *testing.T) {
	b := openGPUOrSkip(t)
	t.Log(b.Info())
	ref := cpu.NewGo()
	runKernelCases(t, b, ref, 7)
	rng := newRand(8)
	for i, s := range [][3]int{{1, 1, 1}, {3, 517, 129}, {257, 63, 1031}, {1000, 999, 77}} {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				m, n, k := s[0], s[1], s[2]
				in := [][]float32{randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, m*n)}
				got, want := runBoth(t, b, ref, in, func(be backend.Kernels, x []backend.Tensor) error {
					return be.MatMul(ta, tb, m, n, k, x[0], x[1], 1, x[2])
				})
				closeTo(t, fmt.Sprintf("case %d: MatMul %v ta=%v tb=%v", i, s, ta, tb), got[2], want[2], 1e-4)
			}
		}
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkGPUMatMul times f32 products (CUBLAS_COMPUTE_32F) of square
// sizes and reports TFLOP/s.
func BenchmarkGPUMatMul(bm *testing.B) {
	b := openGPUOrSkip(bm)
	for _, n := range []int{1024, 4096, 8192} {
		bm.Run(fmt.Sprint(n), func(bm *testing.B) {
			x, err := b.Alloc(n * n)
			if err != nil {
				bm.Fatal(err)
			}
			defer b.Free(x)
			y, err := b.Alloc(n * n)
			if err != nil {
				bm.Fatal(err)
			}
			defer b.Free(y)
			if err := b.MatMul(false, true, n, n, n, x, x, 0, y); err != nil { // plan outside the timing
				bm.Fatal(err)
			}
			if err := b.Sync(); err != nil {
				bm.Fatal(err)
			}
			bm.ResetTimer()
			for i := 0; i < bm.N; i++ {
				if err := b.MatMul(false, true, n, n, n, x, x, 0, y); err != nil {
					bm.Fatal(err)
				}
			}
			if err := b.Sync(); err != nil {
				bm.Fatal(err)
			}
			bm.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(bm.N)/bm.Elapsed().Seconds()/1e12, "TFLOP/s")
		})
	}
}
