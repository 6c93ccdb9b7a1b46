package backend

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DeviceMemory is an optional capability of a backend that keeps its
// tensors in a device's memory rather than the host's (a GPU). Commands
// check their memory plan against it instead of the host's memory.
type DeviceMemory interface {
	// DeviceMemory reports the bytes free and in total on the device this
	// backend computes on, as the device reports them now (with the
	// backend open: what it already holds is not free), and the device's
	// name with its ordinal, e.g. "NVIDIA H100 80GB HBM3 (device 0)". An
	// error says why the device could not be asked.
	DeviceMemory() (free, total int64, name string, err error)
	// Reserved is the device memory the backend holds besides its
	// tensors (the device's context, libraries' workspaces, scratch
	// buffers), an estimate for memory plans, in bytes.
	Reserved() int64
}

// byteUnits are the suffixes ParseBytes accepts, longest first within a
// family so that "GiB" is not read as "B".
var byteUnits = []struct {
	suffix string
	scale  float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
}

// ParseBytes reads a size in bytes: a number, with an exponent or not
// ("80000000000", "80e9"), or a number and a unit, decimal (KB, MB, GB,
// TB, or K, M, G, T) or binary (KiB, MiB, GiB, TiB), spaces allowed
// between them ("80GB", "141 GiB", "0.5TB"). The result is positive; the
// error says what was given and what to write.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	for _, u := range byteUnits {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, scale = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	n := v * scale
	if err != nil || math.IsNaN(n) || n < 1 || n > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, e.g. 80GB, 80e9 or 141GiB", s)
	}
	return int64(n), nil
}
