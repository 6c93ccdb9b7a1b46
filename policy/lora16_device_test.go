//go:build unix

package policy

// Adapters over a base frozen in bfloat16 on device backends: the arena
// and, where it opens, the CUDA kernels on the host (cudaemu) compute
// what pure Go computes; the frozen weights enter the device once.

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// base16Devices returns the device backends the bfloat16-base tests run
// on, each with its tolerance against pure Go (relative): the arena,
// which runs Go's kernels (the same bits), and cudaemu where it opens.
func base16Devices(t *testing.T) map[string]struct {
	open func() backend.Backend
	tol  float64
} {
	t.Helper()
	out := map[string]struct {
		open func() backend.Backend
		tol  float64
	}{"arena": {func() backend.Backend { return newArena(t) }, 0}}
	if _, err := backend.Open("cudaemu"); err != nil {
		if os.Getenv(backend.EnvVar) == "cudaemu" {
			t.Fatalf("%s=cudaemu but: %v", backend.EnvVar, err)
		}
		t.Logf("skipping cudaemu: %v", err)
		return out
	}
	open := func() backend.Backend {
		be, err := backend.Open("cudaemu")
		if err != nil {
			t.Fatal(err)
		}
		return be
	}
	out["cudaemu"] = struct {
		open func() backend.Backend
		tol  float64
	}{open, 1e-5}
	return out
}

// TestLoRABase16Devices: Backward's log-probs, the adapters' gradients and
// LogProbs over a bfloat16 base on each device backend equal those of
// pure Go to the backend's tolerance, and equal those of the rounded
// float32 model on the same backend.
func TestLoRABase16Devices(t *testing.T) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for name, dev := range base16Devices(t) {
		for _, tc := range base16Cases() {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				seqs, coef := batchFor(84, tinyConfig(tc.tied).VocabSize)
				_, goFrozen := base16Pair(t, tc, func() backend.Backend { return cpu.NewGo() })
				want := runBase16(t, goFrozen, seqs, coef)
				rounded, frozen := base16Pair(t, tc, dev.open)
				got := runBase16(t, frozen, seqs, coef)
				got.compare(t, want, dev.tol, name+" vs pure Go")
				got.compare(t, runBase16(t, rounded, seqs, coef), 1e-5, name+" bf16 base vs rounded f32")
				checkFrozenBase(t, frozen)
			})
		}
	}
}

// TestLoRABase16Uploads counts the values Backward moves to the arena
// over a bfloat16 base: the first call mirrors the frozen weights once,
// as bfloat16; a later call uploads no bfloat16 value and far fewer
// float32 values than the frozen weights (its inputs and the rotary
// tables), and holds no more device memory than the first left.
func TestLoRABase16Uploads(t *testing.T) {
	tc := base16Cases()[1] // with recomputation: every frozen matrix is read three times a call
	a := newArena(t)
	u := &halfUploads{uploads: uploads{Backend: a}}
	_, m := base16Pair(t, tc, func() backend.Backend { return u })
	seqs, coef := batchFor(86, m.Config.VocabSize)
	frozen := frozenLen(m)
	var live int
	for call := range 3 {
		u.n, u.half = 0, 0
		if _, err := m.Backward(seqs, coef); err != nil {
			t.Fatal(err)
		}
		t.Logf("call %d: %d float32 and %d bfloat16 values uploaded (%d frozen weights)", call, u.n-u.half, u.half, frozen)
		switch {
		case call == 0 && u.half != frozen:
			t.Errorf("the first call mirrored %d bfloat16 values, want the %d frozen weights once", u.half, frozen)
		case call == 0:
			live = a.Live()
		case u.half != 0 || (u.n-u.half)*4 > frozen:
			t.Errorf("call %d uploaded %d bfloat16 and %d float32 values: the frozen weights (%d) went up again", call, u.half, u.n-u.half, frozen)
		case a.Live() != live:
			t.Errorf("the arena holds %d bytes after call %d, %d after the first", a.Live(), call, live)
		}
	}
}

// halfUploads is uploads that also counts the bfloat16 values apart.
type halfUploads struct {
	uploads
	half int
}

func (u *halfUploads) MirrorBF16(h []uint16) (backend.Tensor, error) {
	u.half += len(h)
	return u.uploads.MirrorBF16(h)
}
