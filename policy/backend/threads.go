package backend

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// pinned is the thread count PinThreads set; 0 means GOMAXPROCS.
var pinned atomic.Int32

// Threads is how many goroutines host kernels split their work among at
// most: the count PinThreads set, else GOMAXPROCS as it is now. Backends
// whose kernels run on the host (package policy/backend/cpu) read it;
// device backends ignore it.
func Threads() int {
	if n := pinned.Load(); n > 0 {
		return int(n)
	}
	return runtime.GOMAXPROCS(0)
}

// PinThreads fixes Threads at n whatever GOMAXPROCS becomes; n ≤ 0 lets
// it follow GOMAXPROCS again. A process that gives the Go scheduler more
// threads than the kernels should use (the trainer does, so that its
// rollout requests never wait for the update to yield the processor) pins
// the count first: how host kernels split their work, and so where a sum
// splits, then stays as it was, and so do the results. It returns the
// previous setting, for a deferred restore. With a device backend it
// changes nothing that computes.
func PinThreads(n int) (previous int) {
	return int(pinned.Swap(int32(max(n, 0))))
}

// Split runs fn over [0, n) in workers contiguous chunks, [w·n/workers,
// (w+1)·n/workers) for w < workers, each on its own goroutine, and
// returns when all are done. With workers ≤ 1 it runs fn(0, n) inline.
func Split(n, workers int, fn func(lo, hi int)) {
	if workers <= 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*n/workers, (w+1)*n/workers
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}
