//go:build unix

package cuda

import "os"

// memInfo reports the emulated device's size (EmulatedMemoryEnv) less
// the bytes mapped for its allocations.
func (e *emu) memInfo() (free, total int64, name string, err error) {
	total, err = emulatedMemory(os.Getenv)
	if err != nil {
		return 0, 0, EmulatedDeviceName, err
	}
	e.mu.Lock()
	live := int64(e.live)
	e.mu.Unlock()
	return max(total-live, 0), total, EmulatedDeviceName, nil
}
