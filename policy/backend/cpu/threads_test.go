package cpu

import (
	"runtime"
	"testing"

	"github.com/artist-rl/artist/policy/backend"
)

// TestPinThreads: unpinned, the kernels follow GOMAXPROCS; pinned, they
// keep the count whatever GOMAXPROCS becomes, and the backend reports it.
func TestPinThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	defer backend.PinThreads(backend.PinThreads(0))
	if got := backend.Threads(); got != 3 {
		t.Fatalf("unpinned backend.Threads() = %d with GOMAXPROCS 3", got)
	}
	if prev := backend.PinThreads(2); prev != 0 {
		t.Fatalf("PinThreads returned %d, want the unpinned 0", prev)
	}
	for _, procs := range []int{1, 5} {
		runtime.GOMAXPROCS(procs)
		if got := backend.Threads(); got != 2 {
			t.Errorf("pinned at 2: backend.Threads() = %d with GOMAXPROCS %d", got, procs)
		}
		if got := NewGo().Info().Threads; got != 2 {
			t.Errorf("pinned at 2: go backend reports %d threads with GOMAXPROCS %d", got, procs)
		}
	}
	backend.PinThreads(-1)
	if got := backend.Threads(); got != 5 {
		t.Errorf("unpinned again: backend.Threads() = %d with GOMAXPROCS 5", got)
	}
}
