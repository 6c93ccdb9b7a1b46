package cuda

import "github.com/artist-rl/artist/policy/backend/cuda/kernels"

// device is what the backend needs of a GPU: memory, kernel launches,
// matrix products and a barrier. The real one (gpu) calls the driver and
// cuBLASLt on the device's thread; the emulated one (emu) runs the same
// kernels' CUDA C on the host over host memory. Everything above this
// interface is shared, so the emulated device tests the backend's own
// code: its argument checks, scratch buffers and the GEMM operand swap.
//
// Work is queued in order on one stream: a transfer or launch queued
// after another sees its effects. Addresses are device addresses (host
// addresses for the emulator); sizes are in bytes.
type device interface {
	kernels.Launcher
	// alloc returns n zeroed bytes of device memory (n > 0).
	alloc(n int) (uintptr, error)
	// free releases what alloc returned; it waits for queued work.
	free(addr uintptr) error
	// zero sets n bytes at addr to 0, in stream order.
	zero(addr uintptr, n int) error
	// upload copies src to device memory at dst, in stream order; src may
	// be reused when it returns.
	upload(dst uintptr, src []byte) error
	// download copies device memory at src into dst once the work queued
	// before it has finished.
	download(dst []byte, src uintptr) error
	// copy copies n bytes from src to dst within the device, in stream
	// order.
	copy(dst, src uintptr, n int) error
	// gemm queues the column-major product g (alpha = 1, D = C in place)
	// on the operands at a, b and c; p says how A and B are stored:
	// float32 (F32), or bfloat16 bits (BF16Inputs), 2 bytes a value. C is
	// float32 and the sums float32 either way.
	gemm(g GEMM, p Precision, a, b uintptr, beta float32, c uintptr) error
	// sync waits for every queued operation and reports a failure of any.
	sync() error
	// describe says what the device is.
	describe() deviceInfo
}
