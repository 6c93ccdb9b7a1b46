package cuda

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/artist-rl/artist/policy/backend"
)

// Backend is the CUDA backend over a device: the real GPU (Open) or the
// emulated one (OpenEmulated). Its tensors are device tensors; every
// kernel refuses host tensors with an error naming the kernel and the
// argument. It is safe for concurrent use: calls reach the device one at
// a time, in order.
type Backend struct {
	name string // "cuda" or "cudaemu"
	dev  device
	pool *pool       // tensors' memory and MatMul's bfloat16 operands
	bf16 atomic.Bool // compute dtype bf16 (SetComputeDType)

	// scratch is device memory for a kernel's host inputs (Rope's
	// positions, AttendCached's span descriptors) and the scratch some
	// kernels need. mu is held from the upload until the kernel is
	// queued; a later call's upload waits for it in stream order.
	mu      sync.Mutex
	scratch uintptr
	cap     int // bytes
}

var _ backend.Backend = (*Backend)(nil)

// ReservedBytes estimates the device memory the backend holds besides
// its tensors, for memory plans: the CUDA context with the kernels'
// module (a few hundred MiB, by the driver and GPU), cuBLASLt's
// workspace and the scratch buffer.
const ReservedBytes = 512<<20 + ltWorkspaceBytes + 16<<20

// Info names the backend, the GPU with its memory, and the libraries.
func (b *Backend) Info() backend.Info {
	d := b.dev.describe()
	core := d.name
	if d.memory > 0 {
		core += fmt.Sprintf(", %.1f GiB", float64(d.memory)/(1<<30))
	}
	return backend.Info{Name: b.name, Threads: 1, Core: core, Library: d.libraries} // one host thread drives the device
}

// HostBLAS is nil: the backend computes on its device.
func (b *Backend) HostBLAS() backend.HostBLAS { return nil }

// Alloc returns a zeroed device tensor of n values; n = 0 gives the empty
// tensor.
func (b *Backend) Alloc(n int) (backend.Tensor, error) {
	if n < 0 {
		return backend.Tensor{}, fmt.Errorf("%s: Alloc(%d)", b.name, n)
	}
	if n == 0 {
		return backend.Tensor{}, nil
	}
	p, err := b.pool.alloc(4 * n)
	if err != nil {
		return backend.Tensor{}, fmt.Errorf("%s: Alloc of %d values: %w", b.name, n, err)
	}
	return backend.Device(p, n), nil
}

// Mirror allocates a device tensor and uploads x into it.
func (b *Backend) Mirror(x []float32) (backend.Tensor, error) { return backend.UploadMirror(b, x) }

// Free releases a tensor Alloc or Mirror returned: its memory goes back
// to the backend's pool, for later allocations of its size (see pool),
// without a device call. It panics when t is not such a tensor (a
// programmer error that a device punishes with corrupt memory).
func (b *Backend) Free(t backend.Tensor) {
	if t.Len() == 0 {
		return
	}
	if t.OnHost() || !b.pool.free(t.Addr()) {
		panic(fmt.Sprintf("%s: Free of a tensor of %d values at %#x that is no live allocation", b.name, t.Len(), t.Addr()))
	}
}

// Upload copies src into the device tensor dst.
func (b *Backend) Upload(dst backend.Tensor, src []float32) error {
	if err := b.args("Upload", dst); err != nil {
		return err
	}
	if dst.Len() != len(src) {
		return fmt.Errorf("%s: Upload of %d values into a tensor of %d", b.name, len(src), dst.Len())
	}
	if len(src) == 0 {
		return nil
	}
	return b.wrap("Upload", b.dev.upload(dst.Addr(), floatBytes(src)))
}

// Download copies the device tensor src into dst once the kernels queued
// before have finished.
func (b *Backend) Download(dst []float32, src backend.Tensor) error {
	if err := b.args("Download", src); err != nil {
		return err
	}
	if src.Len() != len(dst) {
		return fmt.Errorf("%s: Download of a tensor of %d values into %d", b.name, src.Len(), len(dst))
	}
	if len(dst) == 0 {
		return nil
	}
	return b.wrap("Download", b.dev.download(floatBytes(dst), src.Addr()))
}

// Zero sets the device tensor t to zeros (cuMemsetD8, ordered after the
// queued kernels).
func (b *Backend) Zero(t backend.Tensor) error {
	if err := b.args("Zero", t); err != nil {
		return err
	}
	if t.Len() == 0 {
		return nil
	}
	return b.wrap("Zero", b.dev.zero(t.Addr(), 4*t.Len()))
}

// Sync waits for every queued kernel and reports the first failure.
func (b *Backend) Sync() error { return b.wrap("Sync", b.dev.sync()) }

// args refuses host tensors among ts (empty tensors pass: they stand for
// "none"), naming op and the argument's position.
func (b *Backend) args(op string, ts ...backend.Tensor) error {
	for i, t := range ts {
		if t.Len() > 0 && t.OnHost() {
			return fmt.Errorf("%s: %s: argument %d is a host tensor of %d values; device backends take tensors from their Alloc or Mirror", b.name, op, i+1, t.Len())
		}
	}
	return nil
}

// wrap names the backend and the operation in a device error.
func (b *Backend) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %s: %w", b.name, op, err)
}

// withScratch runs fn with at least n bytes of device scratch, holding
// the scratch until fn returns (fn queues the kernels that use it). The
// scratch grows by doubling; the old one is freed after a sync, as a
// queued kernel may still read it.
func (b *Backend) withScratch(n int, fn func(scratch uintptr) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.cap {
		size := max(n, 2*b.cap, 1<<16)
		if b.scratch != 0 {
			if err := b.dev.sync(); err != nil {
				return err
			}
			if err := b.dev.free(b.scratch); err != nil {
				return err
			}
			b.scratch, b.cap = 0, 0
		}
		p, err := b.dev.alloc(size)
		if err != nil {
			return err
		}
		b.scratch, b.cap = p, size
	}
	return fn(b.scratch)
}

// floatBytes is the bytes of x, shared.
func floatBytes(x []float32) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x))
}

// wordBytes is the bytes of x, shared.
func wordBytes[T int32 | uint64](x []T) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), int(unsafe.Sizeof(x[0]))*len(x))
}
