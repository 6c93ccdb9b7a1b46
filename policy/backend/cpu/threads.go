package cpu

import (
	"runtime"
	"sync/atomic"
)

// pinned is the thread count PinThreads set; 0 means GOMAXPROCS.
var pinned atomic.Int32

// Threads is how many goroutines the kernels split their work among at
// most: the count PinThreads set, else GOMAXPROCS as it is now.
func Threads() int {
	if n := pinned.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}

// PinThreads fixes the kernels' thread count at n whatever GOMAXPROCS
// becomes; n ≤ 0 lets them follow GOMAXPROCS again. A process that gives
// the Go scheduler more threads than the kernels should use (the trainer
// does, so that its rollout requests never wait for the update to yield
// the processor) pins the count first: how work is split, and so where
// a sum splits, then stays as it was, and so do the results. It returns
// the previous setting, for a deferred restore.
func PinThreads(n int) (previous int) {
	return int(pinned.Swap(int32(max(n, 0))))
}
