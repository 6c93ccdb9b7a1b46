//go:build linux

package kernels

import (
	"strings"
	"testing"
)

func TestEmulatorErrors(t *testing.T) {
	e := newEmu(t)
	one := Dim3{1, 1, 1}
	x := make([]float32, 4)
	for _, c := range []struct {
		name   string
		kernel string
		block  Dim3
		params []any
		want   string
	}{
		{"unknown kernel", "nope", one, nil, "no kernel nope"},
		{"parameter count", "scale", one, []any{addr(x), int64(4)}, "takes 3 parameters, got 2"},
		{"parameter type", "scale", one, []any{addr(x), 4, float32(1)}, "parameter 1 is a int"},
		{"parameter size", "scale", one, []any{addr(x), int32(4), float32(1)}, "parameter 1 of scale is 8 bytes in C"},
		{"block too large", "scale", Dim3{2048, 1, 1}, []any{addr(x), int64(4), float32(1)}, "invalid launch configuration"},
		{"empty block", "scale", Dim3{0, 1, 1}, []any{addr(x), int64(4), float32(1)}, "invalid launch configuration"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := e.Launch(c.kernel, one, c.block, 0, c.params...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	err := e.Launch("scale", one, one, 64<<10, addr(x), int64(4), float32(1))
	if err == nil || !strings.Contains(err.Error(), "over 48 KiB") {
		t.Errorf("64 KiB of shared memory: got %v, want an error", err)
	}
}

// TestEmulatorArity checks the number of parameters of every kernel that
// the launch functions name, which the emulator knows from the C.
func TestEmulatorArity(t *testing.T) {
	e := newEmu(t)
	for _, k := range KernelNames {
		if e.Arity(k) < 1 {
			t.Errorf("the emulator has no kernel %s", k)
		}
	}
	if got := e.Arity("attention_back_q"); got != 13 {
		t.Errorf("attention_back_q takes %d parameters, want 13", got)
	}
}

// TestEmulatorSemantics runs the emulator's own test kernels
// (csrc/selftest.cpp).
func TestEmulatorSemantics(t *testing.T) {
	e := newEmu(t)
	const n = 64
	out := make([]float32, 4*n)
	must(t, e.Launch("emu_shuffles", Dim3{1, 1, 1}, Dim3{n, 1, 1}, 0, addr(out)))
	for i := range n {
		lane, base := i%32, i-i%32
		down, up := float32(i), float32(i)
		if lane+3 < 32 {
			down = float32(base + lane + 3)
		}
		if lane >= 2 {
			up = float32(i - 2)
		}
		want := []float32{float32(base + lane ^ 5), down, up, n * (n - 1) / 2}
		for k, w := range want {
			if out[4*i+k] != w {
				t.Errorf("thread %d, result %d: %v, want %v", i, k, out[4*i+k], w)
			}
		}
	}

	const blocks, threads = 37, 96
	shared := make([]float32, 2*blocks*threads)
	must(t, e.Launch("emu_shared", Dim3{blocks, 1, 1}, Dim3{threads, 1, 1}, 4, addr(shared)))
	for i, v := range shared {
		if want := float32(i / 2 / threads); v != want {
			t.Fatalf("value %d: %v, want %v (shared memory of another block)", i, v, want)
		}
	}

	sum := make([]float32, 1)
	must(t, e.Launch("emu_atomics", Dim3{blocks, 1, 1}, Dim3{threads, 1, 1}, 0, addr(sum)))
	if sum[0] != blocks*threads {
		t.Errorf("atomic sum %v, want %d", sum[0], blocks*threads)
	}

	err := e.Launch("emu_deadlock", Dim3{1, 1, 1}, Dim3{64, 1, 1}, 0, addr(out))
	if err == nil || !strings.Contains(err.Error(), "deadlock") {
		t.Errorf("got %v, want a deadlock error", err)
	}
}
