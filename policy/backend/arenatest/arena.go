//go:build unix

package arenatest

import (
	"fmt"
	"slices"
	"sync"
	"syscall"
	"unsafe"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/artist-rl/artist/policy/backend/cpu"
)

// align is the alignment of every block, in bytes.
const align = 64

// Backend is the arena backend. It is safe for concurrent use, as the
// Backend contract asks: kernels on distinct tensors may run at once
// (the arena is readable while any of them runs).
type Backend struct {
	ref *cpu.Backend // the arithmetic

	mu     sync.Mutex
	mem    []byte        // the arena: PROT_NONE while open == 0
	open   int           // kernels and transfers running
	next   int           // first byte never handed out
	starts []int         // offsets of the live blocks, sorted
	size   map[int]int   // live block offset → bytes
	spare  map[int][]int // freed blocks by size, for reuse
	live   int           // bytes in live blocks
}

var _ backend.Backend = (*Backend)(nil)

// New maps an arena of the given bytes (reserved, not committed: only
// the pages tensors use take memory) and returns a backend over it. Close
// unmaps it.
func New(bytes int) (*Backend, error) {
	mem, err := syscall.Mmap(-1, 0, bytes, syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("arenatest: map %d bytes: %w", bytes, err)
	}
	return &Backend{ref: cpu.NewGo(), mem: mem, size: map[int]int{}, spare: map[int][]int{}}, nil
}

// Close unmaps the arena; no tensor of it may be used after.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.mem == nil {
		return nil
	}
	err := syscall.Munmap(b.mem)
	b.mem = nil
	return err
}

// Info names the backend.
func (b *Backend) Info() backend.Info {
	return backend.Info{Name: "arenatest", Threads: b.ref.Info().Threads}
}

// HostBLAS is nil: the backend is a device.
func (b *Backend) HostBLAS() backend.HostBLAS { return nil }

// Live is the number of bytes in tensors allocated and not freed.
func (b *Backend) Live() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.live
}

// Alloc cuts a zeroed block of n values from the arena.
func (b *Backend) Alloc(n int) (backend.Tensor, error) {
	if n == 0 {
		return backend.Tensor{}, nil
	}
	bytes := (n*4 + align - 1) / align * align
	b.mu.Lock()
	defer b.mu.Unlock()
	off := -1
	if s := b.spare[bytes]; len(s) > 0 {
		off, b.spare[bytes] = s[len(s)-1], s[:len(s)-1]
	} else if b.next+bytes <= len(b.mem) {
		off, b.next = b.next, b.next+bytes
	} else {
		return backend.Tensor{}, fmt.Errorf("arenatest: out of memory: %d bytes asked, %d of %d in use", bytes, b.live, len(b.mem))
	}
	i, _ := slices.BinarySearch(b.starts, off)
	b.starts = slices.Insert(b.starts, i, off)
	b.size[off] = bytes
	b.live += bytes
	if err := b.protect(true); err != nil {
		return backend.Tensor{}, err
	}
	clear(b.mem[off : off+bytes])
	if err := b.protect(false); err != nil {
		return backend.Tensor{}, err
	}
	return backend.Device(b.addr(off), n), nil
}

// Mirror allocates a tensor and uploads x into it.
func (b *Backend) Mirror(x []float32) (backend.Tensor, error) { return backend.UploadMirror(b, x) }

// Free returns t's block to the arena. It panics when t is not a block
// that Alloc returned and that is live (a programmer error a device
// would punish with corrupt memory).
func (b *Backend) Free(t backend.Tensor) {
	if t.Len() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	off, ok := b.offset(t.Addr())
	bytes, live := b.size[off]
	if !ok || !live {
		panic(fmt.Sprintf("arenatest: Free of a tensor at %#x that is no live block", t.Addr()))
	}
	i, _ := slices.BinarySearch(b.starts, off)
	b.starts = slices.Delete(b.starts, i, i+1)
	delete(b.size, off)
	b.spare[bytes] = append(b.spare[bytes], off)
	b.live -= bytes
}

// Upload copies src into the device tensor dst.
func (b *Backend) Upload(dst backend.Tensor, src []float32) error {
	if dst.Len() != len(src) {
		return fmt.Errorf("arenatest: Upload of %d values into a tensor of %d", len(src), dst.Len())
	}
	v, err := b.enter("Upload", dst)
	if err != nil {
		return err
	}
	defer b.leave()
	copy(v[0].Host(), src)
	return nil
}

// Download copies the device tensor src into dst.
func (b *Backend) Download(dst []float32, src backend.Tensor) error {
	if src.Len() != len(dst) {
		return fmt.Errorf("arenatest: Download of a tensor of %d values into %d", src.Len(), len(dst))
	}
	v, err := b.enter("Download", src)
	if err != nil {
		return err
	}
	defer b.leave()
	copy(dst, v[0].Host())
	return nil
}

// Zero sets the device tensor t to zeros.
func (b *Backend) Zero(t backend.Tensor) error {
	v, err := b.enter("Zero", t)
	if err != nil {
		return err
	}
	defer b.leave()
	clear(v[0].Host())
	return nil
}

// addr is the device address of arena offset off.
func (b *Backend) addr(off int) uintptr { return uintptr(unsafe.Pointer(&b.mem[0])) + uintptr(off) }

// offset is the arena offset of device address a, and whether a is in
// the arena.
func (b *Backend) offset(a uintptr) (int, bool) {
	if b.mem == nil {
		return 0, false
	}
	base := uintptr(unsafe.Pointer(&b.mem[0]))
	if a < base || a >= base+uintptr(len(b.mem)) {
		return 0, false
	}
	return int(a - base), true
}

// view checks that t lies inside one live block and returns the host
// slice over it; b.mu is held.
func (b *Backend) view(t backend.Tensor) ([]float32, error) {
	if t.OnHost() {
		return nil, fmt.Errorf("a host tensor of %d values", t.Len())
	}
	off, ok := b.offset(t.Addr())
	if !ok {
		return nil, fmt.Errorf("a device tensor at %#x outside the arena", t.Addr())
	}
	i, found := slices.BinarySearch(b.starts, off)
	if !found {
		i--
	}
	if i < 0 || off+4*t.Len() > b.starts[i]+b.size[b.starts[i]] {
		return nil, fmt.Errorf("a device tensor of %d values at offset %d that no live block holds", t.Len(), off)
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b.mem[off])), t.Len()), nil
}

// enter checks the tensors of a call to op, opens the arena and returns
// host views of them (an empty tensor stays empty); leave closes it.
func (b *Backend) enter(op string, ts ...backend.Tensor) ([]backend.Tensor, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]backend.Tensor, len(ts))
	for i, t := range ts {
		if t.Len() == 0 {
			continue
		}
		v, err := b.view(t)
		if err != nil {
			return nil, fmt.Errorf("arenatest: %s: argument %d is %v", op, i+1, err)
		}
		out[i] = backend.Host(v)
	}
	if err := b.protect(true); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *Backend) leave() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.protect(false); err != nil {
		panic(err) // the arena would stay readable: the test could not trust it
	}
}

// protect opens (readable and writable) or closes (PROT_NONE) the arena,
// counting the calls inside it; b.mu is held.
func (b *Backend) protect(open bool) error {
	if open {
		b.open++
		if b.open > 1 {
			return nil
		}
		if err := syscall.Mprotect(b.mem, syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return fmt.Errorf("arenatest: open the arena: %w", err)
		}
		return nil
	}
	b.open--
	if b.open > 0 {
		return nil
	}
	if err := syscall.Mprotect(b.mem, syscall.PROT_NONE); err != nil {
		return fmt.Errorf("arenatest: close the arena: %w", err)
	}
	return nil
}
