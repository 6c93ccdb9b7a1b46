package cuda

import "testing"

// TestFakeGPUDeviceMemory asks the real device code for the memory
// (cuMemGetInfo on the device's thread) of the fake driver's 3 GiB
// device: the total, the name with the ordinal, and free memory that
// drops by a tensor's bytes while it lives and comes back after (the
// fake counts the bytes malloc gave, a few KiB above the tensor's).
func TestFakeGPUDeviceMemory(t *testing.T) {
	b, fake := openFakeGPU(t)
	defer b.dev.(*gpu).close()
	free, total, name, err := b.DeviceMemory()
	if err != nil || total != 3<<30 || name != "Fake GPU (device 0)" || free <= 0 || free >= total {
		t.Fatalf("DeviceMemory() = %d, %d, %q, %v; want free under 3 GiB, total 3 GiB, \"Fake GPU (device 0)\"", free, total, name, err)
	}
	x, err := b.Alloc(16 << 20) // 64 MiB
	if err != nil {
		t.Fatal(err)
	}
	with, _, _, err := b.DeviceMemory()
	if err != nil || free-with < 64<<20 {
		t.Errorf("free %d, then %d with a 64 MiB tensor (%v): the tensor is not counted", free, with, err)
	}
	b.Free(x) // kept by the pool for reuse: free all the same
	if after, _, _, _ := b.DeviceMemory(); after < free-64<<10 || after > free {
		t.Errorf("free %d after freeing the tensor, %d before it", after, free)
	}
	if n := fakeCall(t, fake, "fake_calls_off_thread"); n != 0 {
		t.Errorf("%d driver calls came from a thread without the context", n)
	}
}
