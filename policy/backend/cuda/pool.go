package cuda

import (
	"errors"
	"sync"
)

// poolAlign is the granularity of pooled blocks, in bytes: cuMemAlloc's
// own alignment, so a block serves any tensor of its rounded size.
const poolAlign = 256

// pool keeps freed device blocks by size for later allocations of the
// same rounded size, as a training step and a decoding step allocate the
// same tensors every time. Reuse needs no synchronization: the device
// runs everything in stream order, so a kernel queued after the free
// runs after every kernel queued before it that used the block. Free is
// then a host-side operation, with no device call (cuMemFree waits for
// the device). When an allocation fails, the pool gives its blocks back
// to the device and the allocation is tried once more.
type pool struct {
	dev device

	mu     sync.Mutex
	spare  map[int][]uintptr // rounded size → free blocks
	size   map[uintptr]int   // live block → rounded size
	cached int               // bytes in spare
}

func newPool(dev device) *pool {
	return &pool{dev: dev, spare: map[int][]uintptr{}, size: map[uintptr]int{}}
}

// alloc returns a zeroed block of at least n bytes (n > 0).
func (p *pool) alloc(n int) (uintptr, error) { return p.get(n, true) }

// allocDirty returns a block of at least n bytes (n > 0) whose contents
// are undefined: scratch that a kernel writes whole before it is read.
func (p *pool) allocDirty(n int) (uintptr, error) { return p.get(n, false) }

// get returns a block of at least n bytes, zeroed when zero is set (a
// fresh block from the device always is).
func (p *pool) get(n int, zero bool) (uintptr, error) {
	n = (n + poolAlign - 1) / poolAlign * poolAlign
	p.mu.Lock()
	if s := p.spare[n]; len(s) > 0 {
		addr := s[len(s)-1]
		p.spare[n] = s[:len(s)-1]
		p.cached -= n
		p.size[addr] = n
		p.mu.Unlock()
		if !zero {
			return addr, nil
		}
		return addr, p.dev.zero(addr, n)
	}
	p.mu.Unlock()
	addr, err := p.dev.alloc(n)
	if err != nil {
		if rerr := p.release(); rerr != nil {
			return 0, errors.Join(err, rerr)
		}
		if addr, err = p.dev.alloc(n); err != nil {
			return 0, err
		}
	}
	p.mu.Lock()
	p.size[addr] = n
	p.mu.Unlock()
	return addr, nil
}

// free returns a live block to the pool; it reports whether addr was one.
func (p *pool) free(addr uintptr) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.size[addr]
	if !ok {
		return false
	}
	delete(p.size, addr)
	p.spare[n] = append(p.spare[n], addr)
	p.cached += n
	return true
}

// release frees every spare block on the device.
func (p *pool) release() error {
	p.mu.Lock()
	spare := p.spare
	p.spare, p.cached = map[int][]uintptr{}, 0
	p.mu.Unlock()
	var errs []error
	for _, blocks := range spare {
		for _, a := range blocks {
			if err := p.dev.free(a); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// cachedBytes is the memory held in spare blocks.
func (p *pool) cachedBytes() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cached
}
