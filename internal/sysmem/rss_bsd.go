//go:build unix && !linux

package sysmem

const maxrssPerMiB = 1 << 20 // ru_maxrss is in bytes
