//go:build linux

package cuda

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
	"github.com/ebitengine/purego"
)

// openFakeGPU builds testdata/fakecuda's stand-ins for libcuda.so.1 and
// libcublasLt.so.13 and opens the real backend ("cuda", package's gpu
// device) on them: every driver and cuBLASLt call goes through purego
// as on a GPU, the fake checks the arguments and the calling thread, and
// kernels run in the emulator. It skips without a C compiler.
func openFakeGPU(t *testing.T) (*Backend, uintptr) {
	t.Helper()
	emu, err := kernels.NewEmulator()
	if err != nil {
		t.Skipf("no kernel emulator: %v", err)
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) to build the fake driver")
	}
	dir := t.TempDir()
	for _, lib := range []struct{ src, out string }{
		{"fakecuda.c", "libcuda.so.1"}, {"fakecublaslt.c", "libcublasLt.so.13"},
	} {
		cmd := exec.Command(cc, "-std=gnu11", "-O1", "-fPIC", "-shared", "-Wall", "-Werror", "-pthread",
			"-o", filepath.Join(dir, lib.out), filepath.Join("testdata", "fakecuda", lib.src), "-ldl")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", lib.out, err, out)
		}
	}
	t.Setenv("FAKECUDA_EMULATOR", emu.Library)
	b, err := openWith(SearchPath{LibDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	fake, err := purego.Dlopen(filepath.Join(dir, "libcuda.so.1"), purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	return b, fake
}

// fakeGPU is openFakeGPU for tests that also run without it.
func fakeGPU(t *testing.T) (b *Backend, ok bool) {
	t.Run("open fake driver", func(t *testing.T) { b, _ = openFakeGPU(t) })
	return b, b != nil
}

// fakeCall calls a no-argument function of the fake driver.
func fakeCall(t *testing.T, lib uintptr, name string) int {
	t.Helper()
	fn, err := purego.Dlsym(lib, name)
	if err != nil {
		t.Fatal(err)
	}
	return int(sys(fn))
}

// TestFakeGPU runs the real device code (driver, cuBLASLt, the locked
// thread, kernel parameters) against the fake libraries: Info, memory,
// MatMul in every transpose and every kernel case, compared with the
// pure-Go backend; no call may come from a thread without the context,
// and closing releases the primary context.
func TestFakeGPU(t *testing.T) {
	b, fake := openFakeGPU(t)
	g := b.dev.(*gpu)
	if info := b.Info(); info.Name != "cuda" || !strings.Contains(info.Core, "Fake GPU, 3.0 GiB") ||
		!strings.Contains(info.Library, "libcuda.so.1 (CUDA 13.0)") || !strings.Contains(info.Library, "libcublasLt.so.13") {
		t.Errorf("Info = %+v", info)
	}
	ref := cpu.NewGo()
	t.Run("memory", func(t *testing.T) {
		z, err := b.Alloc(5)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free(z)
		got := []float32{1, 1, 1, 1, 1}
		if err := b.Download(got, z); err != nil || slices.ContainsFunc(got, func(v float32) bool { return v != 0 }) {
			t.Errorf("Alloc is not zeroed: %v, %v", got, err)
		}
	})
	t.Run("MatMul", func(t *testing.T) {
		rng := newRand(4)
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				m, n, k := 7, 5, 3
				in := [][]float32{randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, m*n)}
				got, want := runBoth(t, b, ref, in, func(be backend.Kernels, x []backend.Tensor) error {
					return be.MatMul(ta, tb, m, n, k, x[0], x[1], 0.5, x[2])
				})
				closeTo(t, "c", got[2], want[2], 1e-5)
			}
		}
	})
	t.Run("kernels", func(t *testing.T) { runKernelCases(t, b, ref, 5) })
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := fakeCall(t, fake, "fake_calls_off_thread"); n != 0 {
		t.Errorf("%d driver calls came from a thread without the context", n)
	}
	if r := int32(sys(g.drv.ctxSynchronize)); r != 201 { // from the test's thread: no context
		t.Errorf("the fake accepted a call without the context (CUresult %d): the check above proves nothing", r)
	}
	if err := g.close(); err != nil {
		t.Fatal(err)
	}
	if n := fakeCall(t, fake, "fake_retained"); n != 0 {
		t.Errorf("primary context retained %d times after close", n)
	}
	if err := b.Sync(); err == nil {
		t.Error("Sync after close: no error")
	}
}
