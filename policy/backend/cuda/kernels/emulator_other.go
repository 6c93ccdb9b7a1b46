//go:build !linux

package kernels

import (
	"errors"
	"runtime"
)

// Emulator runs the module's kernels on the host; it needs Linux (fibers
// from ucontext, a library loaded with dlopen).
type Emulator struct {
	Library string
}

var _ Launcher = (*Emulator)(nil)

// NewEmulator returns an error: the emulator runs on Linux only.
func NewEmulator() (*Emulator, error) {
	return nil, errors.New("kernels: the CUDA emulator runs on Linux only, not " + runtime.GOOS)
}

// Launch returns an error: the emulator runs on Linux only.
func (e *Emulator) Launch(string, Dim3, Dim3, uint32, ...any) error {
	return errors.New("kernels: the CUDA emulator runs on Linux only")
}

// Arity returns -1.
func (e *Emulator) Arity(string) int { return -1 }
