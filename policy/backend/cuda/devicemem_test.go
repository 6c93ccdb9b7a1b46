//go:build unix

package cuda

import (
	"strings"
	"testing"
)

// TestEmulatedDeviceMemory: the emulated device is as large as
// ARTIST_CUDAEMU_MEMORY says (80 GB unset), less what its tensors hold,
// and an unreadable size is an error naming the variable.
func TestEmulatedDeviceMemory(t *testing.T) {
	b, err := OpenEmulated()
	if err != nil {
		t.Skipf("cudaemu: %v", err)
	}
	if b.Reserved() != ReservedBytes {
		t.Errorf("Reserved() = %d, want ReservedBytes %d", b.Reserved(), ReservedBytes)
	}
	for _, c := range []struct {
		env       string
		total     int64
		errSubstr string
	}{
		{"", DefaultEmulatedMemory, ""},
		{"2GB", 2e9, ""},
		{"512MiB", 512 << 20, ""},
		{"lots", 0, EmulatedMemoryEnv},
		{"-5", 0, EmulatedMemoryEnv},
	} {
		t.Setenv(EmulatedMemoryEnv, c.env)
		free, total, name, err := b.DeviceMemory()
		if c.errSubstr != "" {
			if err == nil || !strings.Contains(err.Error(), c.errSubstr) {
				t.Errorf("%s=%q: error %v, want one naming %s", EmulatedMemoryEnv, c.env, err, c.errSubstr)
			}
			continue
		}
		if err != nil || total != c.total || free > total || name != EmulatedDeviceName {
			t.Errorf("%s=%q: free %d, total %d, name %q, %v; want total %d, named %q", EmulatedMemoryEnv, c.env, free, total, name, err, c.total, EmulatedDeviceName)
		}
	}
	t.Setenv(EmulatedMemoryEnv, "1GB")
	before, _, _, _ := b.DeviceMemory()
	x, err := b.Alloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	with, _, _, _ := b.DeviceMemory()
	b.Free(x)
	after, _, _, _ := b.DeviceMemory()
	if before-with < 4<<20 || after != before {
		t.Errorf("free %d before a 4 MiB tensor, %d with it, %d after it", before, with, after)
	}
}
