//go:build unix

package cuda

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// openEmu returns the emulated backend, skipping the test where the
// kernels' emulator cannot start (no C++ toolchain).
func openEmu(t *testing.T) *Backend {
	t.Helper()
	b, err := OpenEmulated()
	if err != nil {
		t.Skipf("cudaemu: %v", err)
	}
	return b
}

func TestEmuMemory(t *testing.T) {
	b := openEmu(t)
	x := []float32{1, 2, 3, 4, 5}
	d, err := b.Mirror(x)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(d)
	if d.OnHost() || d.Len() != 5 {
		t.Fatalf("Mirror gave %+v, want a device tensor of 5 values", d)
	}
	z, err := b.Alloc(3)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(z)
	got := make([]float32, 3)
	if err := b.Download(got, z); err != nil || got[0] != 0 || got[2] != 0 {
		t.Fatalf("Alloc is not zeroed: %v, %v", got, err)
	}
	if err := b.Copy(z, d.Slice(1, 4)); err != nil {
		t.Fatal(err)
	}
	if err := b.Download(got, z); err != nil || got[0] != 2 || got[2] != 4 {
		t.Fatalf("Copy of a view: %v, %v, want [2 3 4]", got, err)
	}
	if err := b.Upload(d, []float32{1}); err == nil {
		t.Error("Upload of 1 value into 5: no error")
	}
	if err := b.Download(make([]float32, 70), backend.Device(d.Addr()+4*4, 70)); err == nil {
		t.Error("Download past the end of an allocation: no error")
	}
}

// TestEmuPool checks the memory pool: a freed block serves the next
// allocation of its size, zeroed; a failed allocation gives the spare
// blocks back and succeeds; Free of what is no live allocation panics.
func TestEmuPool(t *testing.T) {
	b := openEmu(t)
	b.dev.(*emu).limit = 4096
	x, err := b.Mirror(make([]float32, 500)) // 2000 bytes, 2048 rounded
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Upload(x, slices.Repeat([]float32{7}, 500)); err != nil {
		t.Fatal(err)
	}
	b.Free(x)
	y, err := b.Alloc(510) // the same rounded size
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 510)
	if err := b.Download(got, y); err != nil || y.Addr() != x.Addr() || slices.ContainsFunc(got, func(v float32) bool { return v != 0 }) {
		t.Fatalf("reuse: %#x for %#x, zeroed %v, %v", y.Addr(), x.Addr(), !slices.Contains(got, 7), err)
	}
	b.Free(y)
	z, err := b.Alloc(700) // 2800 bytes: fits only once the spare block is given back
	if err != nil {
		t.Fatalf("Alloc with a spare block in the way: %v", err)
	}
	if n := b.pool.cachedBytes(); n != 0 {
		t.Errorf("%d bytes still cached", n)
	}
	b.Free(z)
	if _, err := b.Alloc(2000); err == nil {
		t.Error("Alloc over the device's memory: no error")
	}
	defer func() {
		if recover() == nil {
			t.Error("Free of a freed tensor did not panic")
		}
	}()
	b.Free(y)
}

// TestEmuRefusesHostTensors checks that every kernel refuses a host
// tensor with an error naming the kernel, as package arenatest does.
func TestEmuRefusesHostTensors(t *testing.T) {
	b := openEmu(t)
	d, err := b.Mirror([]float32{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	h := backend.Host(make([]float32, 4))
	e := backend.Tensor{}
	hd := backend.Heads{H: 1, K: 1, D: 2, Scale: 1}
	cases := []struct {
		kernel string
		call   func() error
	}{
		{"MatMul", func() error { return b.MatMul(false, false, 2, 2, 2, d, h, 0, d) }},
		{"AddBias", func() error { return b.AddBias(d, h) }},
		{"ColSum", func() error { return b.ColSum(h, d) }},
		{"Embed", func() error { return b.Embed(d, d, h, 2) }},
		{"EmbedBack", func() error { return b.EmbedBack(h, d, d, 2) }},
		{"RMSNorm", func() error { return b.RMSNorm(d, d, h, 4, 1e-6) }},
		{"RMSNormBack", func() error { return b.RMSNormBack(d, e, d, d, h, 4, 1e-6) }},
		{"Rope", func() error { return b.Rope(d, d, 1, 2, []int{0, 1}, h, d, false) }},
		{"Attention", func() error { return b.Attention(d, e, d, h, d, hd, 2) }},
		{"AttentionBack", func() error { return b.AttentionBack(d, d, d, d, d, d, d, e, h, hd, 2) }},
		{"AttendCached", func() error {
			return b.AttendCached(d, d, []backend.Tensor{h}, []backend.Tensor{d}, []backend.Span{{N: 1}}, hd)
		}},
		{"SwiGLU", func() error { return b.SwiGLU(d, e, d, h) }},
		{"SwiGLUBack", func() error { return b.SwiGLUBack(d, d, d, d, e, h) }},
		{"TokenLogProb", func() error { return b.TokenLogProb(h, e, d, d, 1) }},
		{"TokenLogProbBack", func() error { return b.TokenLogProbBack(d, d, d, e, h, 1) }},
		{"AdamW", func() error { return b.AdamW(d, h, d, d, backend.AdamWStep{}) }},
		{"Copy", func() error { return b.Copy(d, h) }},
		{"Add", func() error { return b.Add(h, d) }},
		{"Mul", func() error { return b.Mul(d, d, h) }},
		{"Scale", func() error { return b.Scale(h, 2) }},
		{"Upload", func() error { return b.Upload(h, make([]float32, 4)) }},
		{"Download", func() error { return b.Download(make([]float32, 4), h) }},
	}
	for _, tc := range cases {
		t.Run(tc.kernel, func(t *testing.T) {
			err := tc.call()
			if err == nil || !strings.Contains(err.Error(), tc.kernel) || !strings.Contains(err.Error(), "host tensor") {
				t.Errorf("%s with a host tensor: %v, want an error naming the kernel and the host tensor", tc.kernel, err)
			}
		})
	}
}

// TestEmuMatMul checks MatMul through the emulated cublasLtMatmul against
// the pure-Go backend for every pair of transposes on odd sizes.
func TestEmuMatMul(t *testing.T) {
	b := openEmu(t)
	ref := cpu.NewGo()
	rng := rand.New(rand.NewSource(2))
	for i, s := range [][3]int{{1, 1, 1}, {5, 3, 7}, {13, 17, 9}, {2, 31, 1}} {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, beta := range []float32{0, 1} {
					m, n, k := s[0], s[1], s[2]
					in := [][]float32{randSlice(rng, m*k), randSlice(rng, k*n), randSlice(rng, m*n)}
					call := func(be backend.Kernels, x []backend.Tensor) error {
						return be.MatMul(ta, tb, m, n, k, x[0], x[1], beta, x[2])
					}
					got, want := runBoth(t, b, ref, in, call)
					closeTo(t, fmt.Sprintf("case %d: MatMul %v ta=%v tb=%v beta=%g", i, s, ta, tb, beta), got[2], want[2], 1e-5)
				}
			}
		}
	}
}

// runBoth runs call on the emulated backend (tensors mirrored from in)
// and on ref (host tensors over copies of in), and returns every tensor's
// values after it, emulated first.
func runBoth(t *testing.T, b *Backend, ref *cpu.Backend, in [][]float32, call func(backend.Kernels, []backend.Tensor) error) (got, want [][]float32) {
	t.Helper()
	dev, host := make([]backend.Tensor, len(in)), make([]backend.Tensor, len(in))
	for i, x := range in {
		host[i] = backend.Host(append([]float32(nil), x...))
		d, err := b.Mirror(x)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free(d)
		dev[i] = d
	}
	if err := call(ref, host); err != nil {
		t.Fatalf("go backend: %v", err)
	}
	if err := call(b, dev); err != nil {
		t.Fatalf("cudaemu: %v", err)
	}
	for i := range in {
		g := make([]float32, len(in[i]))
		if err := b.Download(g, dev[i]); err != nil {
			t.Fatal(err)
		}
		got, want = append(got, g), append(want, host[i].Host())
	}
	return got, want
}

// TestEmuConcurrent runs kernels that use the scratch buffer (Rope's
// positions) from several goroutines at once: each must see its own
// positions, as the Backend contract allows concurrent calls on distinct
// outputs.
func TestEmuConcurrent(t *testing.T) {
	b := openEmu(t)
	ref := cpu.NewGo()
	rng := newRand(5)
	cos, sin := randSlice(rng, tP*tD/2), randSlice(rng, tP*tD/2)
	dcos, dsin := mirrorT(t, b, cos), mirrorT(t, b, sin)
	const workers = 6
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		x := randSlice(rng, tN*tH*tD)
		pos := []int{w % tP, (w + 3) % tP, (w + 1) % tP, (w + 5) % tP, w % 5, 8 - w}
		go func() {
			want := append([]float32(nil), x...)
			if err := ref.Rope(backend.Host(want), backend.Host(x), tH, tD, pos, backend.Host(cos), backend.Host(sin), false); err != nil {
				errs <- err
				return
			}
			dx, err := b.Mirror(x)
			if err != nil {
				errs <- err
				return
			}
			defer b.Free(dx)
			dy, err := b.Alloc(len(x))
			if err != nil {
				errs <- err
				return
			}
			defer b.Free(dy)
			got := make([]float32, len(x))
			for i := 0; i < 50; i++ { // each launch uploads its positions again
				if err := b.Rope(dy, dx, tH, tD, pos, dcos, dsin, false); err != nil {
					errs <- err
					return
				}
				if err := b.Download(got, dy); err != nil {
					errs <- err
					return
				}
				for j := range got {
					if d := got[j] - want[j]; d > 1e-5 || d < -1e-5 {
						errs <- fmt.Errorf("worker %d, launch %d: value %d is %g, want %g", w, i, j, got[j], want[j])
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func mirrorT(t *testing.T, b *Backend, x []float32) backend.Tensor {
	t.Helper()
	d, err := b.Mirror(x)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Free(d) })
	return d
}
