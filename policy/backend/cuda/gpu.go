package cuda

// The real device: the driver and cuBLASLt, every call on one locked OS
// thread with the device's primary context current. Work goes to the
// legacy default stream (stream 0), which orders every launch, product
// and copy of the process after the ones queued before it; the
// synchronous copies wait for it.

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
)

// gpu is device ordinal 0 of this process (data-parallel ranks each see
// theirs through CUDA_VISIBLE_DEVICES).
type gpu struct {
	drv  *driver
	lt   *cublasLt
	w    *worker
	info deviceInfo

	// Used on the worker thread only.
	dev       int32
	ctx, mod  uintptr
	fns       map[string]uintptr
	plans     map[planKey]*ltPlan
	workspace uintptr
}

var _ device = (*gpu)(nil)

// openGPU loads the libraries from sp, makes the primary context of
// device 0 current on a new thread, loads the kernels' PTX (the driver
// compiles it for this GPU) and starts cuBLASLt. Its errors wrap
// ErrNoDriver, ErrNoDevice or ErrNoCuBLASLt when one of those is missing.
func openGPU(sp SearchPath) (*gpu, error) {
	driverPath := sp
	driverPath.SitePackages = nil // wheels do not carry the driver
	drv, err := loadDriver(LibraryCandidates(driverPath, driverSonames))
	if err != nil {
		return nil, err
	}
	g := &gpu{drv: drv, fns: map[string]uintptr{}, plans: map[planKey]*ltPlan{}}
	g.w, err = startWorker(g.setup)
	if err != nil {
		return nil, err
	}
	lt, err := loadCublasLt(LibraryCandidates(sp, cublasLtSonames))
	if err != nil {
		return nil, errors.Join(err, g.close())
	}
	g.lt = lt
	if err := g.w.do(g.startLt); err != nil {
		return nil, errors.Join(err, g.close())
	}
	g.info.libraries = fmt.Sprintf("%s (CUDA %s), %s (%s)", drv.lib.Name, drv.version(), lt.lib.Name, lt.version())
	return g, nil
}

// setup runs first on the worker thread: cuInit, the device, its primary
// context, the kernels' module.
func (g *gpu) setup() error {
	d := g.drv
	dev, info, err := d.describeDevice()
	if err != nil {
		return err
	}
	g.dev, g.info = dev, info
	if err := d.check("cuDevicePrimaryCtxRetain", sys(d.primaryCtxRetain, uintptr(unsafe.Pointer(&g.ctx)), uintptr(dev))); err != nil {
		return err
	}
	err = d.check("cuCtxSetCurrent", sys(d.ctxSetCurrent, g.ctx))
	if err == nil {
		ptx := append(append([]byte(nil), kernels.PTX...), 0) // cuModuleLoadData reads a NUL-terminated image
		err = d.check("cuModuleLoadData", sys(d.moduleLoadData, uintptr(unsafe.Pointer(&g.mod)), uintptr(unsafe.Pointer(&ptx[0]))))
		if err != nil {
			err = fmt.Errorf("%w (the driver could not compile the kernels' PTX: update the NVIDIA driver)", err)
		}
	}
	if err != nil { // the thread ends: give the context back
		sys(d.primaryCtxRelease, uintptr(dev))
	}
	return err
}

// startLt makes cuBLASLt's handle and allocates its workspace.
func (g *gpu) startLt() error {
	if err := g.lt.start(); err != nil {
		return err
	}
	return g.drv.check("cuMemAlloc", sys(g.drv.memAlloc, uintptr(unsafe.Pointer(&g.workspace)), ltWorkspaceBytes))
}

// close releases the context and ends the thread. Allocations are not
// freed one by one: the primary context's memory goes with the process.
func (g *gpu) close() error {
	return g.w.stop(func() error {
		d := g.drv
		if g.mod != 0 {
			sys(d.moduleUnload, g.mod)
		}
		if g.ctx == 0 {
			return nil
		}
		return d.check("cuDevicePrimaryCtxRelease", sys(d.primaryCtxRelease, uintptr(g.dev)))
	})
}

func (g *gpu) describe() deviceInfo { return g.info }

func (g *gpu) alloc(n int) (uintptr, error) {
	var p uintptr
	err := g.w.do(func() error {
		d := g.drv
		if err := d.check("cuMemAlloc", sys(d.memAlloc, uintptr(unsafe.Pointer(&p)), uintptr(n))); err != nil {
			return err
		}
		return d.check("cuMemsetD8", sys(d.memsetD8, p, 0, uintptr(n)))
	})
	return p, err
}

// free waits for the queued work (a kernel may still use the memory)
// and frees.
func (g *gpu) free(addr uintptr) error {
	return g.w.do(func() error {
		if err := g.drv.check("cuCtxSynchronize", sys(g.drv.ctxSynchronize)); err != nil {
			return err
		}
		return g.drv.check("cuMemFree", sys(g.drv.memFree, addr))
	})
}

func (g *gpu) zero(addr uintptr, n int) error {
	return g.w.do(func() error { return g.drv.check("cuMemsetD8", sys(g.drv.memsetD8, addr, 0, uintptr(n))) })
}

func (g *gpu) upload(dst uintptr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return g.w.do(func() error {
		return g.drv.check("cuMemcpyHtoD", sys(g.drv.memcpyHtoD, dst, uintptr(unsafe.Pointer(&src[0])), uintptr(len(src))))
	})
}

func (g *gpu) download(dst []byte, src uintptr) error {
	if len(dst) == 0 {
		return nil
	}
	return g.w.do(func() error {
		return g.drv.check("cuMemcpyDtoH", sys(g.drv.memcpyDtoH, uintptr(unsafe.Pointer(&dst[0])), src, uintptr(len(dst))))
	})
}

func (g *gpu) copy(dst, src uintptr, n int) error {
	return g.w.do(func() error { return g.drv.check("cuMemcpyDtoD", sys(g.drv.memcpyDtoD, dst, src, uintptr(n))) })
}

func (g *gpu) sync() error {
	return g.w.do(func() error { return g.drv.check("cuCtxSynchronize", sys(g.drv.ctxSynchronize)) })
}

// Launch queues kernel with params (see kernels.Launcher) on stream 0.
func (g *gpu) Launch(kernel string, grid, block kernels.Dim3, sharedBytes uint32, params ...any) error {
	slots, err := encodeParams(params)
	if err != nil {
		return fmt.Errorf("cuda: launch %s: %w", kernel, err)
	}
	return g.w.do(func() error {
		fn, err := g.function(kernel)
		if err != nil {
			return err
		}
		return g.launch(kernel, fn, grid, block, sharedBytes, slots)
	})
}

// launch calls cuLaunchKernel with kernelParams, an array of pointers to
// each argument's value; the driver copies the values during the call.
// Both arrays are pinned for the call, as the driver reads Go memory.
func (g *gpu) launch(kernel string, fn uintptr, grid, block kernels.Dim3, shared uint32, slots []uint64) error {
	var ptrs []uintptr
	var pin runtime.Pinner
	defer pin.Unpin()
	if len(slots) > 0 {
		pin.Pin(&slots[0])
		ptrs = make([]uintptr, len(slots))
		for i := range slots {
			ptrs[i] = uintptr(unsafe.Pointer(&slots[i]))
		}
		pin.Pin(&ptrs[0])
	}
	var params uintptr
	if len(ptrs) > 0 {
		params = uintptr(unsafe.Pointer(&ptrs[0]))
	}
	r := sys(g.drv.launchKernel, fn,
		uintptr(grid.X), uintptr(grid.Y), uintptr(grid.Z), uintptr(block.X), uintptr(block.Y), uintptr(block.Z),
		uintptr(shared), 0, params, 0)
	return g.drv.check("cuLaunchKernel "+kernel, r)
}

// function returns the kernel's handle, looked up once.
func (g *gpu) function(kernel string) (uintptr, error) {
	if fn, ok := g.fns[kernel]; ok {
		return fn, nil
	}
	name := append([]byte(kernel), 0)
	var fn uintptr
	r := sys(g.drv.moduleGetFunction, uintptr(unsafe.Pointer(&fn)), g.mod, uintptr(unsafe.Pointer(&name[0])))
	if err := g.drv.check("cuModuleGetFunction "+kernel, r); err != nil {
		return 0, err
	}
	g.fns[kernel] = fn
	return fn, nil
}

// gemm queues gm through cuBLASLt, planning its shape, precision and
// alignments on first use.
func (g *gpu) gemm(gm GEMM, p Precision, a, b uintptr, beta float32, c uintptr) error {
	return g.w.do(func() error {
		k := planKey{g: gm, p: p, align: [3]uint32{alignment(a), alignment(b), alignment(c)}}
		pl, ok := g.plans[k]
		if !ok {
			var err error
			if pl, err = g.lt.plan(k); err != nil {
				return err
			}
			g.plans[k] = pl
		}
		return g.lt.run(pl, a, b, beta, c, g.workspace)
	})
}
