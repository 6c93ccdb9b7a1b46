//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"runtime/debug"
	"syscall"
	"time"
)

// applyLimits sets the limits the Go runtime offers everywhere: the
// garbage collector aims below memory and stacks stop at maxStack(memory).
// Address-space, file and CPU limits are set on Linux only.
func applyLimits(memory int64) error {
	debug.SetMemoryLimit(memory)
	debug.SetMaxStack(maxStack(memory))
	return nil
}

// limitCPU does nothing outside Linux; the parent's deadline applies.
func limitCPU(time.Duration) {}

// executable returns the program to start workers from: the running
// executable.
func executable() (string, error) { return os.Executable() }

// procAttr returns no special attributes outside Linux.
func procAttr() *syscall.SysProcAttr { return nil }

// cpuLimitHit is false: no CPU-time limit is set outside Linux.
func cpuLimitHit(*os.ProcessState) bool { return false }

// pinCPUs refuses a CPU list outside Linux.
func pinCPUs(cpus []int) error {
	if len(cpus) > 0 {
		return errors.New("sandbox: cpus is supported on Linux only; leave it empty")
	}
	return nil
}
