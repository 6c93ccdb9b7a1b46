//go:build linux

package pysandbox

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_X86_64
	// x32Bit marks the x32 ABI's system call numbers, which the filters
	// refuse: they would reach the same calls under other numbers.
	x32Bit = 0x40000000
)

var (
	archDenied = []uintptr{unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_USELIB, unix.SYS__SYSCTL, unix.SYS_MODIFY_LDT}
	archForks  = []uintptr{unix.SYS_FORK, unix.SYS_VFORK}
)
