package kernels

import (
	"sync"
	"unsafe"
)

// escaped is where HostAddr stores its argument, which makes the compiler
// allocate every slice passed to HostAddr on the heap.
var escaped struct {
	sync.Mutex
	v any
}

// HostAddr returns the address of s's first element for the Emulator, 0
// for an empty s. A Go slice may live on its goroutine's stack, which
// moves when the stack grows, even during a launch; any slice passed to
// HostAddr is allocated on the heap instead, where Go does not move
// memory. The caller keeps s alive until the kernels that use the
// address are done (runtime.KeepAlive).
func HostAddr[T any](s []T) uintptr {
	if len(s) == 0 {
		return 0
	}
	escaped.Lock()
	escaped.v = s
	escaped.Unlock()
	return uintptr(unsafe.Pointer(unsafe.SliceData(s)))
}
