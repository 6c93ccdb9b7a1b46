package sandbox

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxOpenFiles is a worker's descriptor limit: what it holds at start
// (standard streams, its two pipes, the runtime's poller) and no more room
// than that.
const maxOpenFiles = 16

// applyLimits limits the calling worker process: its address space may
// grow by memory bytes beyond what it has mapped now (the Go runtime maps
// about 1.5 GiB of reserved space at start, so a fixed limit would mostly
// measure the runtime), the garbage collector aims below memory, stacks stop
// at maxStack(memory), files cannot be written or opened, and no core file
// is written. The CPU-time limit is set per call by limitCPU.
func applyLimits(memory int64) error {
	mapped, err := addressSpace()
	if err != nil {
		return err
	}
	for _, l := range []struct {
		name     string
		resource int
		value    uint64
	}{
		{"address space", syscall.RLIMIT_AS, uint64(mapped + memory)},
		{"file size", syscall.RLIMIT_FSIZE, 0},
		{"core size", syscall.RLIMIT_CORE, 0},
		{"open files", syscall.RLIMIT_NOFILE, maxOpenFiles},
	} {
		lim := syscall.Rlimit{Cur: l.value, Max: l.value}
		if err := syscall.Setrlimit(l.resource, &lim); err != nil {
			return fmt.Errorf("sandbox: limit %s to %d: %w", l.name, l.value, err)
		}
	}
	debug.SetMemoryLimit(memory)
	debug.SetMaxStack(maxStack(memory))
	return nil
}

// addressSpace returns the bytes the calling process has mapped.
func addressSpace() (int64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, fmt.Errorf("sandbox: read address space size: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("sandbox: read address space size: empty /proc/self/statm")
	}
	pages, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("sandbox: read address space size: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}

// limitCPU lets the calling process use timeout plus two seconds more CPU
// time than it has used so far; past that the kernel ends it (SIGXCPU).
// It backs up the parent's deadline should that fail to end a program.
func limitCPU(timeout time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return
	}
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	secs := uint64(math.Ceil((used + timeout + 2*time.Second).Seconds()))
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CPU, &lim) != nil || secs > lim.Max {
		return
	}
	lim.Cur = secs
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &lim)
}

// executable returns the program to start workers from: the running
// executable itself, which stays reachable through /proc even when its file
// has been replaced or removed since it started.
func executable() (string, error) { return "/proc/self/exe", nil }

// procAttr puts a worker in its own process group, so the parent can kill
// it with anything it started, and has the kernel kill it if the parent
// dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// cpuLimitHit reports whether the kernel ended the worker for exceeding
// its CPU-time limit.
func cpuLimitHit(state *os.ProcessState) bool {
	ws, ok := state.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGXCPU
}

// pinCPUs restricts every thread of the calling worker to cpus (threads
// started later inherit it); empty cpus changes nothing.
func pinCPUs(cpus []int) error {
	if len(cpus) == 0 {
		return nil
	}
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("sandbox: cpus: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("sandbox: cpus %v: %w (list CPUs this process may run on; taskset -p $$ shows them)", cpus, err)
		}
	}
	return nil
}
