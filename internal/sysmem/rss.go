//go:build unix

// Package sysmem reports the memory the process uses, for logs and
// benchmarks.
package sysmem

import "syscall"

// PeakRSSMiB is the process's peak resident memory in MiB (getrusage
// RUSAGE_SELF; ru_maxrss is KiB on Linux, bytes on Darwin). Child
// processes (sandbox workers) are not counted. 0 when it is unavailable.
func PeakRSSMiB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / maxrssPerMiB
}
