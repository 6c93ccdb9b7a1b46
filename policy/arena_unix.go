//go:build unix

package policy

import (
	"sync"
	"syscall"
	"unsafe"
)

// hostArena returns n zeroed float32 values outside the Go heap (an
// anonymous mapping) and the function that unmaps them. Memory that a
// training graph holds for its lifetime then costs no garbage-collector
// headroom and goes back to the system as soon as the graph is closed.
// It falls back to the Go heap where the mapping fails. Calling the
// function again does nothing.
func hostArena(n int) ([]float32, func()) {
	if n == 0 {
		return nil, func() {}
	}
	b, err := syscall.Mmap(-1, 0, n*4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]float32, n), func() {}
	}
	var once sync.Once
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n), func() { once.Do(func() { _ = syscall.Munmap(b) }) }
}
