//go:build linux

package pysandbox

import "golang.org/x/sys/unix"

const (
	auditArch = unix.AUDIT_ARCH_AARCH64
	x32Bit    = 0 // no second ABI
)

var (
	archDenied []uintptr
	archForks  []uintptr // processes start only through clone
)
