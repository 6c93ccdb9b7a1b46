package kernels

import (
	"errors"
	"fmt"
)

// Dim3 is a grid or block size, as cuLaunchKernel takes it.
type Dim3 struct{ X, Y, Z uint32 }

// Launcher runs a kernel of the embedded module (PTX) by name. params are
// the kernel's arguments in order, each one of: uintptr (a device
// address), int32, uint32, int64, uint64 or float32, matching the C
// parameter types float*/int*/SpanDesc*, int, unsigned, long long,
// unsigned long long and float. A CUDA implementation hands them to
// cuLaunchKernel as an array of pointers to each value; Emulator runs the
// same kernel on the host. Launch returns once the launch is queued (a
// device) or done (the emulator); kernels queued on one stream run in
// order, which the multi-kernel launch functions rely on.
type Launcher interface {
	Launch(kernel string, grid, block Dim3, sharedBytes uint32, params ...any) error
}

// Block sizes of the kernels: every reduction kernel assumes a whole
// number of warps.
const (
	blockElems = 256 // element-wise kernels, grid-stride
	blockRows  = 256 // one block per row: norms, log-probs
	blockAttn  = 128 // attention: a tile of rows or one row per block
	maxGrid    = 8192
	warp       = 32
)

// errSize is returned for sizes that cannot describe a launch.
var errSize = errors.New("kernels: negative or inconsistent size")

// elemGrid is the grid of a grid-stride kernel over n elements.
func elemGrid(n int) Dim3 {
	return Dim3{X: uint32(min(maxGrid, (n+blockElems-1)/blockElems)), Y: 1, Z: 1}
}

// rowsGrid is one block per row, rows ≤ 2³¹−1.
func rowsGrid(rows int) Dim3 { return Dim3{X: uint32(rows), Y: 1, Z: 1} }

// threads is a 1-D block of n threads.
func threads(n int) Dim3 { return Dim3{X: uint32(n), Y: 1, Z: 1} }

// launch wraps a launch error with the kernel's name.
func launch(l Launcher, kernel string, grid, block Dim3, shared int, params ...any) error {
	if err := l.Launch(kernel, grid, block, uint32(shared), params...); err != nil {
		return fmt.Errorf("kernels: %s: %w", kernel, err)
	}
	return nil
}

// checkSizes returns errSize, naming the kernel, when a size is negative
// or does not fit a C int.
func checkSizes(kernel string, sizes ...int) error {
	for _, s := range sizes {
		if s < 0 || s > 1<<31-1 {
			return fmt.Errorf("%w in %s: %v", errSize, kernel, sizes)
		}
	}
	return nil
}

// b32 is a C int flag.
func b32(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// KernelNames are the kernels of the module that the launch functions
// launch; a CUDA Launcher may look each up once when it loads PTX
// (cuModuleGetFunction) and launch by handle after.
var KernelNames = []string{
	"fill", "copy", "add", "mul", "scale", "add_bias", "embed", "embed_back", "col_sum",
	"rmsnorm", "rmsnorm_back_dx", "rmsnorm_back_dw", "rope", "swiglu", "swiglu_back",
	"token_logprob", "token_logprob_back", "adamw", "sample",
	"attention_tiled", "attention_rows", "attention_back_q", "attention_back_kv",
	"attention_back_q_tiled", "attention_back_kv_tiled", "attend_cached", "attend_cached_rows", "round_bf16",
	"widen_bf16",
}
