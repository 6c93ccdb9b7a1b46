package cuda

// The device's memory, for memory plans (backend.DeviceMemory).

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/artist-rl/artist/policy/backend"
)

// EmulatedMemoryEnv names the environment variable that sizes the
// emulated device's memory as DeviceMemory reports it, in bytes with an
// optional unit (backend.ParseBytes: "80e9", "80GB", "512MiB"), so that
// memory plans can be tried on it; the emulator itself allocates host
// memory without that bound.
const EmulatedMemoryEnv = "ARTIST_CUDAEMU_MEMORY"

// DefaultEmulatedMemory is the emulated device's memory when
// EmulatedMemoryEnv is unset: an 80 GB GPU's.
const DefaultEmulatedMemory int64 = 80e9

// EmulatedDeviceName is the name DeviceMemory gives the emulated device.
const EmulatedDeviceName = "cudaemu (host emulator)"

var _ backend.DeviceMemory = (*Backend)(nil)

// memoryReporter is a device that can say how much memory it has.
type memoryReporter interface {
	// memInfo returns the bytes free and in total, and the device's name
	// with its ordinal.
	memInfo() (free, total int64, name string, err error)
}

// DeviceMemory reports the bytes free and in total on the backend's
// device, and its name: for the GPU the driver's figures
// (cuMemGetInfo), taken with the backend's context, module and cuBLASLt
// workspace already allocated, and "<GPU name> (device N)"; for the
// emulator EmulatedMemoryEnv's size (DefaultEmulatedMemory unset) less
// the bytes its allocations hold, and EmulatedDeviceName. Free counts
// the freed blocks the backend keeps for reuse, which it gives back to
// the device when an allocation needs them.
func (b *Backend) DeviceMemory() (free, total int64, name string, err error) {
	m, ok := b.dev.(memoryReporter)
	if !ok {
		return 0, 0, "", fmt.Errorf("%s: this device cannot report its memory", b.name)
	}
	free, total, name, err = m.memInfo()
	if err != nil {
		return 0, 0, name, fmt.Errorf("%s: device memory: %w", b.name, err)
	}
	b.pool.mu.Lock()
	cached := int64(b.pool.cached)
	b.pool.mu.Unlock()
	return min(free+cached, total), total, name, nil
}

// Reserved is ReservedBytes: what the backend holds on its device
// besides its tensors.
func (b *Backend) Reserved() int64 { return ReservedBytes }

// memInfo asks the driver on the device's thread (cuMemGetInfo needs the
// context current).
func (g *gpu) memInfo() (free, total int64, name string, err error) {
	var f, t uint64
	var dev int32
	err = g.w.do(func() error {
		dev = g.dev
		return g.drv.check("cuMemGetInfo", sys(g.drv.memGetInfo, uintptr(unsafe.Pointer(&f)), uintptr(unsafe.Pointer(&t))))
	})
	return int64(f), int64(t), fmt.Sprintf("%s (device %d)", g.info.name, dev), err
}

// emulatedMemory is the emulated device's size: EmulatedMemoryEnv as env
// looks it up (os.Getenv), else DefaultEmulatedMemory.
func emulatedMemory(env func(string) string) (int64, error) {
	v := strings.TrimSpace(env(EmulatedMemoryEnv))
	if v == "" {
		return DefaultEmulatedMemory, nil
	}
	n, err := backend.ParseBytes(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w (or unset it for %d bytes)", EmulatedMemoryEnv, err, DefaultEmulatedMemory)
	}
	return n, nil
}
