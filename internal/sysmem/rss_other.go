//go:build !unix

// Package sysmem reports the memory the process uses, for logs and
// benchmarks.
package sysmem

// PeakRSSMiB is 0 where getrusage is not available.
func PeakRSSMiB() float64 { return 0 }
