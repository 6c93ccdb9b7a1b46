//go:build linux

package kernels

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// The tests run each kernel through the Emulator on Go slices (the
// emulator's device addresses are host addresses; the Go heap does not
// move) and compare with the pure-Go backend on the same inputs.

// tolerance is the agreement the tests ask of results that sum in
// another order than the pure-Go backend (reductions, attention):
// |got − want| ≤ tolerance·(1 + |want|). Element-wise results that do
// the same operations in the same order must agree to exactRel.
const (
	tolerance = 2e-5
	exactRel  = 1e-6
)

// newEmu returns the emulator. Without a C++ compiler the test skips,
// unless ARTIST_REQUIRE_CXX=1 makes that a failure (CI).
func newEmu(t testing.TB) *Emulator {
	t.Helper()
	e, err := NewEmulator()
	if errors.Is(err, ErrNoCompiler) && os.Getenv("ARTIST_REQUIRE_CXX") != "1" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// addr is the "device" address of s for the emulator, 0 when s is empty
// (HostAddr, which puts s on the heap).
func addr[T any](s []T) uintptr { return HostAddr(s) }

// randn returns n normal values of the given scale from rng.
func randn(rng *rand.Rand, n int, scale float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * scale)
	}
	return x
}

func clone(x []float32) []float32 { return append([]float32(nil), x...) }

// assertClose fails the test when got and want differ by more than
// tol·(1+|want|) anywhere.
func assertClose(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst, at := 0.0, -1
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		d := math.Abs(g-w) / (1 + math.Abs(w))
		if d > worst || math.IsNaN(d) {
			worst, at = d, i
			if math.IsNaN(d) {
				break
			}
		}
	}
	if at >= 0 && (worst > tol || math.IsNaN(worst)) {
		t.Errorf("%s: value %d is %g, want %g (relative error %.3g > %.3g)", what, at, got[at], want[at], worst, tol)
	}
}

func ref() *cpu.Backend { return cpu.NewGo() }

func host(x []float32) backend.Tensor { return backend.Host(x) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
