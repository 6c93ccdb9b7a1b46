//go:build !linux

package trainer

import "runtime"

// lowerThreadPriority locks the calling goroutine to its thread; other
// systems than Linux keep its priority (see yield_linux.go).
func lowerThreadPriority() bool {
	runtime.LockOSThread()
	return false
}
