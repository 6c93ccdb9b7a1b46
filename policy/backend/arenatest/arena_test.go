//go:build unix

package arenatest

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

func newArena(t *testing.T, bytes int) *Backend {
	t.Helper()
	a, err := New(bytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	})
	return a
}

func mirror(t *testing.T, a *Backend, x []float32) backend.Tensor {
	t.Helper()
	d, err := a.Mirror(x)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestHostTensorIsRefused checks that every kernel refuses a host tensor
// with an error naming the kernel and the argument.
func TestHostTensorIsRefused(t *testing.T) {
	a := newArena(t, 1<<20)
	d := mirror(t, a, []float32{1, 2, 3, 4})
	h := backend.Host(make([]float32, 4))
	hd := backend.Heads{H: 1, K: 1, D: 2, Scale: 1}
	cases := []struct {
		kernel string
		arg    int
		call   func() error
	}{
		{"MatMul", 2, func() error { return a.MatMul(false, false, 2, 2, 2, d, h, 0, d) }},
		{"AddBias", 2, func() error { return a.AddBias(d, h) }},
		{"ColSum", 1, func() error { return a.ColSum(h, d) }},
		{"Embed", 3, func() error { return a.Embed(d, d, h, 2) }},
		{"EmbedBack", 1, func() error { return a.EmbedBack(h, d, d, 2) }},
		{"RMSNorm", 3, func() error { return a.RMSNorm(d, d, h, 4, 1e-6) }},
		{"RMSNormBack", 5, func() error { return a.RMSNormBack(d, backend.Tensor{}, d, d, h, 4, 1e-6) }},
		{"Rope", 3, func() error { return a.Rope(d, d, 1, 2, []int{0, 1}, h, d, false) }},
		{"Attention", 4, func() error { return a.Attention(d, backend.Tensor{}, d, h, d, hd, 2) }},
		{"AttentionBack", 9, func() error { return a.AttentionBack(d, d, d, d, d, d, d, backend.Tensor{}, h, hd, 2) }},
		{"AttendCached", 4, func() error {
			return a.AttendCached(d, d, []backend.Tensor{d}, []backend.Tensor{h}, []backend.Span{{N: 1}}, hd)
		}},
		{"SwiGLU", 4, func() error { return a.SwiGLU(d, backend.Tensor{}, d, h) }},
		{"SwiGLUBack", 6, func() error { return a.SwiGLUBack(d, d, d, d, backend.Tensor{}, h) }},
		{"TokenLogProb", 3, func() error { return a.TokenLogProb(d, backend.Tensor{}, h, d, 1) }},
		{"TokenLogProbBack", 1, func() error { return a.TokenLogProbBack(h, d, d, backend.Tensor{}, d, 1) }},
		{"AdamW", 4, func() error { return a.AdamW(d, d, d, h, backend.AdamWStep{}) }},
		{"Copy", 2, func() error { return a.Copy(d, h) }},
		{"Add", 1, func() error { return a.Add(h, d) }},
		{"Mul", 3, func() error { return a.Mul(d, d, h) }},
		{"Scale", 1, func() error { return a.Scale(h, 2) }},
		{"LinearRows", 3, func() error { return a.LinearRows(2, 2, 1, d, d, h) }},
		{"Sample", 4, func() error { return a.Sample(d, d, backend.Tensor{}, h, backend.Tensor{}, 1, 4, 0, 1) }},
		{"Upload", 1, func() error { return a.Upload(h, make([]float32, 4)) }},
		{"Download", 1, func() error { return a.Download(make([]float32, 4), h) }},
	}
	for i, tc := range cases {
		t.Run(tc.kernel, func(t *testing.T) {
			err := tc.call()
			want := tc.kernel + ": argument " + string(rune('0'+tc.arg)) + " is a host tensor"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("case %d: error %v, want one containing %q", i, err, want)
			}
		})
	}
}

// sink keeps a read the compiler could otherwise drop.
var sink byte

// TestArenaIsUnreadableBetweenKernels reads a tensor's memory directly,
// outside any kernel, and requires a fault; through Download the values
// are there.
func TestArenaIsUnreadableBetweenKernels(t *testing.T) {
	a := newArena(t, 1<<20)
	x := []float32{1, 2, 3, 4}
	d := mirror(t, a, x)
	if err := a.Scale(d, 2); err != nil {
		t.Fatal(err)
	}
	off, _ := a.offset(d.Addr())
	faulted := func() (faulted bool) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { faulted = recover() != nil }()
		sink = a.mem[off]
		return false
	}()
	if !faulted {
		t.Error("reading the arena outside a kernel did not fault")
	}
	got := make([]float32, 4)
	if err := a.Download(got, d); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 2*x[i] {
			t.Fatalf("Download gave %v, want twice %v", got, x)
		}
	}
}

// TestTensorsOutsideBlocksAreRefused checks the bounds: past the end of
// a block, outside the arena, and in a freed block.
func TestTensorsOutsideBlocksAreRefused(t *testing.T) {
	a := newArena(t, 1<<20)
	d := mirror(t, a, make([]float32, 16))
	freed := mirror(t, a, make([]float32, 64))
	a.Free(freed)
	cases := []struct {
		name string
		t    backend.Tensor
		want string
	}{
		{"past the block", backend.Device(d.Addr()+8, 16), "no live block holds"},
		{"outside the arena", backend.Device(1<<12, 4), "outside the arena"},
		{"freed", freed, "no live block holds"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := a.Scale(tc.t, 2)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("case %d: error %v, want one containing %q", i, err, tc.want)
			}
		})
	}
	if a.Live() != 64 {
		t.Errorf("live bytes %d, want 64 (one block of 16 values)", a.Live())
	}
}

// TestKernelsAreThoseOfGo checks a product, a norm and the log-prob on
// the arena against the pure-Go backend, bit for bit.
func TestKernelsAreThoseOfGo(t *testing.T) {
	a, ref := newArena(t, 1<<20), cpu.NewGo()
	const m, n, k = 5, 7, 8
	x, w := make([]float32, m*k), make([]float32, n*k)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)))
	}
	for i := range w {
		w[i] = float32(math.Cos(float64(3 * i)))
	}
	want := make([]float32, m*n)
	lpWant := make([]float32, m)
	targets := []float32{0, 3, -1, 6, 2}
	if err := ref.MatMul(false, true, m, n, k, backend.Host(x), backend.Host(w), 0, backend.Host(want)); err != nil {
		t.Fatal(err)
	}
	if err := ref.TokenLogProb(backend.Host(lpWant), backend.Tensor{}, backend.Host(want), backend.Host(targets), n); err != nil {
		t.Fatal(err)
	}
	dy, dl, dt := mirror(t, a, make([]float32, m*n)), mirror(t, a, make([]float32, m)), mirror(t, a, targets)
	if err := a.MatMul(false, true, m, n, k, mirror(t, a, x), mirror(t, a, w), 0, dy); err != nil {
		t.Fatal(err)
	}
	if err := a.TokenLogProb(dl, backend.Tensor{}, dy, dt, n); err != nil {
		t.Fatal(err)
	}
	got, lp := make([]float32, m*n), make([]float32, m)
	if err := a.Download(got, dy); err != nil {
		t.Fatal(err)
	}
	if err := a.Download(lp, dl); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("product element %d: %v, want %v", i, got[i], want[i])
		}
	}
	for i := range lpWant {
		if math.Float32bits(lp[i]) != math.Float32bits(lpWant[i]) {
			t.Fatalf("log-prob %d: %v, want %v", i, lp[i], lpWant[i])
		}
	}
}
