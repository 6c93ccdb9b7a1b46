package cpu

import "github.com/artist-rl/artist/policy/backend"

// Threads is how many goroutines the kernels split their work among at
// most: backend.Threads, the count backend.PinThreads set, else
// GOMAXPROCS as it is now.
func Threads() int { return backend.Threads() }

// PinThreads is backend.PinThreads: it fixes the kernels' thread count at
// n whatever GOMAXPROCS becomes (n ≤ 0: follow GOMAXPROCS again) and
// returns the previous setting.
func PinThreads(n int) (previous int) { return backend.PinThreads(n) }
