package cuda

// The CUDA driver API (libcuda.so.1), called through purego without cgo.
// CUresult is a C enum (int32); CUdevice is an int; CUdeviceptr is a
// 64-bit integer; contexts, modules, functions and streams are pointers.
// Every pointer argument below is converted to uintptr in the argument
// list of SyscallN or sys itself, which keeps the Go value it points to
// alive and in place for the call.

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/artist-rl/artist/policy/backend"
	"github.com/ebitengine/purego"
)

// Errors that say what this machine lacks; Open wraps them with how to fix
// it.
var (
	ErrNoDriver   = errors.New("cuda: no NVIDIA driver (libcuda.so.1)")
	ErrNoDevice   = errors.New("cuda: no CUDA GPU visible")
	ErrNoCuBLASLt = errors.New("cuda: no cuBLASLt (libcublasLt.so.13 or .so.12)")
)

// CUresult values the backend tells apart.
const (
	cudaSuccess       = 0
	cudaErrorNoDevice = 100 // CUDA_ERROR_NO_DEVICE
)

// driver holds libcuda's entry points.
type driver struct {
	lib *backend.Library

	init, deviceGetCount, deviceGet, deviceGetName, deviceTotalMem     uintptr
	primaryCtxRetain, primaryCtxRelease, ctxSetCurrent, ctxSynchronize uintptr
	memAlloc, memFree, memcpyHtoD, memcpyDtoH, memcpyDtoD, memsetD8    uintptr
	moduleLoadData, moduleUnload, moduleGetFunction, launchKernel      uintptr
	getErrorName, getErrorString, driverGetVersion                     uintptr
	memGetInfo                                                         uintptr
}

// loadDriver opens libcuda.so.1 from candidates and resolves the entry
// points, the _v2 ones where cuda.h maps the name to them.
func loadDriver(candidates []string) (*driver, error) {
	lib, err := loadFirst(candidates)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	d := &driver{lib: lib}
	for _, s := range []struct {
		fn   *uintptr
		name string
	}{
		{&d.init, "cuInit"}, {&d.deviceGetCount, "cuDeviceGetCount"}, {&d.deviceGet, "cuDeviceGet"},
		{&d.deviceGetName, "cuDeviceGetName"}, {&d.deviceTotalMem, "cuDeviceTotalMem_v2"},
		{&d.primaryCtxRetain, "cuDevicePrimaryCtxRetain"}, {&d.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"},
		{&d.ctxSetCurrent, "cuCtxSetCurrent"}, {&d.ctxSynchronize, "cuCtxSynchronize"},
		{&d.memAlloc, "cuMemAlloc_v2"}, {&d.memFree, "cuMemFree_v2"},
		{&d.memcpyHtoD, "cuMemcpyHtoD_v2"}, {&d.memcpyDtoH, "cuMemcpyDtoH_v2"}, {&d.memcpyDtoD, "cuMemcpyDtoD_v2"},
		{&d.memsetD8, "cuMemsetD8_v2"}, {&d.moduleLoadData, "cuModuleLoadData"}, {&d.moduleUnload, "cuModuleUnload"},
		{&d.moduleGetFunction, "cuModuleGetFunction"}, {&d.launchKernel, "cuLaunchKernel"},
		{&d.getErrorName, "cuGetErrorName"}, {&d.getErrorString, "cuGetErrorString"},
		{&d.driverGetVersion, "cuDriverGetVersion"}, {&d.memGetInfo, "cuMemGetInfo_v2"},
	} {
		if *s.fn, err = lib.Symbol(s.name); err != nil {
			return nil, fmt.Errorf("cuda: %s is too old or not the NVIDIA driver: %w", lib.Name, err)
		}
	}
	return d, nil
}

// cuError is a failed driver call: the call, CUDA's error name and its
// description.
type cuError struct {
	call, name, desc string
	code             int32
}

func (e *cuError) Error() string {
	return fmt.Sprintf("cuda: %s: %s (%s)", e.call, e.name, e.desc)
}

// check turns the CUresult r of call into nil or a *cuError.
func (d *driver) check(call string, r uintptr) error {
	code := int32(r)
	if code == cudaSuccess {
		return nil
	}
	var name, desc *byte
	purego.SyscallN(d.getErrorName, uintptr(code), uintptr(unsafe.Pointer(&name)))
	purego.SyscallN(d.getErrorString, uintptr(code), uintptr(unsafe.Pointer(&desc)))
	e := &cuError{call: call, name: backend.GoString(name), desc: backend.GoString(desc), code: code}
	if e.name == "" {
		e.name = fmt.Sprintf("CUresult %d", code)
	}
	return e
}

// errCode is the CUresult of a driver error, 0 for other errors.
func errCode(err error) int32 {
	var e *cuError
	if errors.As(err, &e) {
		return e.code
	}
	return 0
}

// version is the CUDA version the driver supports, e.g. "13.0".
func (d *driver) version() string {
	var v int32
	if r, _, _ := purego.SyscallN(d.driverGetVersion, uintptr(unsafe.Pointer(&v))); r != 0 {
		return "?"
	}
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}

// deviceInfo is what Info reports of a device.
type deviceInfo struct {
	name      string // the GPU's name, e.g. "NVIDIA H100 80GB HBM3"
	memory    int64  // bytes of device memory
	libraries string // the libraries loaded, e.g. "libcuda.so.1 (CUDA 13.0), libcublasLt.so.13"
}

// describeDevice picks the process's device after cuInit (see
// DeviceOrdinal) and reads its name and memory; it errors with
// ErrNoDevice when there is none.
func (d *driver) describeDevice() (dev int32, info deviceInfo, err error) {
	if err := d.check("cuInit", sys(d.init, 0)); err != nil {
		if errCode(err) == cudaErrorNoDevice {
			return 0, info, ErrNoDevice
		}
		return 0, info, err
	}
	var n int32
	if err := d.check("cuDeviceGetCount", sys(d.deviceGetCount, uintptr(unsafe.Pointer(&n)))); err != nil {
		return 0, info, err
	}
	if n == 0 {
		return 0, info, ErrNoDevice
	}
	ordinal, err := DeviceOrdinal(os.Getenv, int(n))
	if err != nil {
		return 0, info, err
	}
	if err := d.check("cuDeviceGet", sys(d.deviceGet, uintptr(unsafe.Pointer(&dev)), uintptr(ordinal))); err != nil {
		return 0, info, err
	}
	name := make([]byte, 256)
	if err := d.check("cuDeviceGetName", sys(d.deviceGetName, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)), uintptr(dev))); err != nil {
		return 0, info, err
	}
	var mem uint64
	if err := d.check("cuDeviceTotalMem", sys(d.deviceTotalMem, uintptr(unsafe.Pointer(&mem)), uintptr(dev))); err != nil {
		return 0, info, err
	}
	info.name, info.memory = backend.GoString(&name[0]), int64(mem)
	return dev, info, nil
}

// DeviceEnv names the environment variable that picks the device by
// ordinal among those CUDA_VISIBLE_DEVICES leaves visible.
const DeviceEnv = "ARTIST_CUDA_DEVICE"

// localRankEnvs are where MPI launchers put a process's rank on its
// machine: Open MPI, MPICH and Intel MPI, Slurm.
var localRankEnvs = []string{"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}

// DeviceOrdinal is the device a process uses among the count visible:
// the ordinal in DeviceEnv when set; else, with several devices visible,
// the process's local rank (MPI's or Slurm's variables) modulo count, so
// that the ranks of one machine take one device each; else 0 (one device
// visible, as when each rank's CUDA_VISIBLE_DEVICES names its own). env
// looks a variable up (os.Getenv).
func DeviceOrdinal(env func(string) string, count int) (int, error) {
	if v := strings.TrimSpace(env(DeviceEnv)); v != "" {
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= count {
			return 0, fmt.Errorf("cuda: %s=%q: want an ordinal below the %d devices visible", DeviceEnv, v, count)
		}
		return i, nil
	}
	if count > 1 {
		for _, name := range localRankEnvs {
			if r, err := strconv.Atoi(strings.TrimSpace(env(name))); err == nil && r >= 0 {
				return r % count, nil
			}
		}
	}
	return 0, nil
}

// sys calls the C function fn and returns its first result register.
// Like SyscallN, it keeps the Go values that pointer arguments converted
// to uintptr in its argument list point to alive and in place.
//
//go:uintptrescapes
func sys(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}
