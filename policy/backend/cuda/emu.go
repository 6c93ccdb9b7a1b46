//go:build unix

package cuda

// The emulated device: memory is anonymous mappings whose host addresses
// serve as device addresses, launches run the kernels' CUDA C on the host
// (kernels.Emulator), and products run EmulateColMajor, cublasLtMatmul's
// column-major contract, so the operand swap of MatMul is exercised as
// on the GPU. Operations run one at a time, in call order, like one
// stream.

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"syscall"
	"unsafe"

	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
)

// emu is the emulated device.
type emu struct {
	k *kernels.Emulator

	mu     sync.Mutex
	blocks map[uintptr][]byte // live mappings by address
	starts []uintptr          // their addresses, sorted
	live   int                // bytes mapped
	limit  int                // bytes the device holds at most, 0 for no limit (tests)
}

var _ device = (*emu)(nil)

func newEmu() (*emu, error) {
	k, err := kernels.NewEmulator()
	if err != nil {
		return nil, fmt.Errorf("cudaemu: %w", err)
	}
	return &emu{k: k, blocks: map[uintptr][]byte{}}, nil
}

func (e *emu) describe() deviceInfo {
	return deviceInfo{name: "emulated device (host memory, kernels.Emulator)", libraries: e.k.Library}
}

// alloc maps n zeroed bytes; the mapping stays referenced in blocks, so
// it lives until free.
func (e *emu) alloc(n int) (uintptr, error) {
	e.mu.Lock()
	full := e.limit > 0 && e.live+n > e.limit
	e.mu.Unlock()
	if full {
		return 0, fmt.Errorf("out of memory: %d bytes asked, %d of %d in use", n, e.live, e.limit)
	}
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, fmt.Errorf("mmap %d bytes: %w", n, err)
	}
	p := uintptr(unsafe.Pointer(&mem[0]))
	e.mu.Lock()
	defer e.mu.Unlock()
	e.blocks[p] = mem
	e.live += n
	i, _ := slices.BinarySearch(e.starts, p)
	e.starts = slices.Insert(e.starts, i, p)
	return p, nil
}

func (e *emu) free(addr uintptr) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	mem, ok := e.blocks[addr]
	if !ok {
		return fmt.Errorf("free of %#x, which is no live allocation", addr)
	}
	delete(e.blocks, addr)
	e.live -= len(mem)
	i, _ := slices.BinarySearch(e.starts, addr)
	e.starts = slices.Delete(e.starts, i, i+1)
	return syscall.Munmap(mem)
}

// view returns the n bytes at addr, which must lie in one live block;
// e.mu is held.
func (e *emu) view(addr uintptr, n int) ([]byte, error) {
	i, found := slices.BinarySearch(e.starts, addr)
	if !found {
		i--
	}
	if i >= 0 {
		start := e.starts[i]
		mem := e.blocks[start]
		if off := int(addr - start); off+n <= len(mem) {
			return mem[off : off+n], nil
		}
	}
	return nil, fmt.Errorf("%d bytes at %#x are outside every live allocation", n, addr)
}

func (e *emu) zero(addr uintptr, n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, err := e.view(addr, n)
	if err != nil {
		return fmt.Errorf("zero: %w", err)
	}
	clear(v)
	return nil
}

func (e *emu) upload(dst uintptr, src []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, err := e.view(dst, len(src))
	if err != nil {
		return fmt.Errorf("upload: %w", err)
	}
	copy(v, src)
	return nil
}

func (e *emu) download(dst []byte, src uintptr) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, err := e.view(src, len(dst))
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	copy(dst, v)
	return nil
}

func (e *emu) copy(dst, src uintptr, n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, err := e.view(dst, n)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	s, err := e.view(src, n)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	copy(d, s)
	return nil
}

func (e *emu) sync() error { return nil }

// Launch checks that every address argument starts inside a live
// allocation, then runs the kernel on the host.
func (e *emu) Launch(kernel string, grid, block kernels.Dim3, sharedBytes uint32, params ...any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, p := range params {
		if a, ok := p.(uintptr); ok && a != 0 {
			if _, err := e.view(a, 1); err != nil {
				return fmt.Errorf("launch %s: argument %d: %w", kernel, i+1, err)
			}
		}
	}
	return e.k.Launch(kernel, grid, block, sharedBytes, params...)
}

// gemm runs g by its column-major definition on views of the operands,
// each as long as its layout spans. With p BF16Inputs, A and B are
// bfloat16 bits (2 bytes a value), widened exactly to float32 first: the
// products of two bfloat16 values are exact in float32, and the sums are
// float32, as CUBLAS_COMPUTE_32F computes them.
func (e *emu) gemm(g GEMM, p Precision, a, b uintptr, beta float32, c uintptr) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ops [3][]float32
	for i, o := range []struct {
		addr uintptr
		l    Layout
		bf16 bool
	}{{a, g.A, p == BF16Inputs}, {b, g.B, p == BF16Inputs}, {c, g.C, false}} {
		size := 4
		if o.bf16 {
			size = 2
		}
		v, err := e.view(o.addr, size*o.l.Elems())
		if err != nil {
			return fmt.Errorf("cublasLtMatmul: operand %d: %w", i+1, err)
		}
		switch {
		case len(v) == 0:
		case o.bf16:
			ops[i] = widenBF16(unsafe.Slice((*uint16)(unsafe.Pointer(&v[0])), len(v)/2))
		default:
			ops[i] = unsafe.Slice((*float32)(unsafe.Pointer(&v[0])), len(v)/4)
		}
	}
	if err := EmulateColMajor(g, ops[0], ops[1], beta, ops[2]); err != nil {
		return fmt.Errorf("cublasLtMatmul: CUBLAS_STATUS_INVALID_VALUE: %w", err)
	}
	return nil
}

// widenBF16 returns the float32 values of bfloat16 bits, exactly.
func widenBF16(h []uint16) []float32 {
	f := make([]float32, len(h))
	for i, v := range h {
		f[i] = math.Float32frombits(uint32(v) << 16)
	}
	return f
}
