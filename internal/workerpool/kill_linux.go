package workerpool

import (
	"os"
	"syscall"
)

// killGroup kills the process group that the worker p leads.
func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
