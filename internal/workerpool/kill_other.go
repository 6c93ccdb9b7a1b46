//go:build !linux

package workerpool

import "os"

// killGroup kills the worker p: outside Linux workers get no process
// group of their own.
func killGroup(p *os.Process) error { return p.Kill() }
