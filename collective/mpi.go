package collective

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// mpiNames are the library files searched when ARTIST_MPI_LIB is unset:
// Open MPI's soname since 3.0, then the development link.
var mpiNames = []string{"libmpi.so.40", "libmpi.so"}

// Open MPI's constants (mpi.h): MPI_IN_PLACE is the address 1, thread
// levels count from MPI_THREAD_SINGLE = 0.
const (
	ompiInPlace       = 1
	mpiThreadFunneled = 1
	mpiMaxLibVersion  = 256
	// maxCount bounds the elements of one call: MPI counts are C ints.
	maxCount = 1 << 30
)

// MPI is a Collective over MPI_COMM_WORLD of Open MPI's libmpi, loaded at
// run time. Every MPI call runs on one goroutine locked to its OS thread,
// the thread that initialised MPI (MPI_THREAD_FUNNELED), whatever
// goroutine calls the method.
type MPI struct {
	lib        string // the library file that loaded
	rank, size int
	calls      chan func()
	// handles are addresses of Open MPI's predefined objects.
	comm, tFloat, tDouble, tByte, tInt, opSum uintptr
	fn                                        mpiFuncs
}

type mpiFuncs struct {
	initThread, initialized, finalize, abort, rank, size, version uintptr
	allreduce, bcast, gather, gatherv, barrier                    uintptr
}

var _ Collective = (*MPI)(nil)

// OpenMPI loads libmpi (ARTIST_MPI_LIB, else libmpi.so.40 or libmpi.so),
// checks that it is Open MPI, and initialises MPI. The error of a library
// that is missing, broken or another MPI names the file and says how to
// choose another.
func OpenMPI() (*MPI, error) {
	names := mpiNames
	if v := strings.TrimSpace(os.Getenv(EnvMPILib)); v != "" {
		names = []string{v}
	}
	h, name, err := dlopenFirst(names)
	if err != nil {
		return nil, err
	}
	c := &MPI{lib: name, calls: make(chan func())}
	if err := c.bind(h); err != nil {
		return nil, fmt.Errorf("collective: %s is not Open MPI's libmpi (%v): install openmpi-bin or set %s to the path of Open MPI's libmpi.so.40", name, err, EnvMPILib)
	}
	if err := c.checkVersion(); err != nil {
		return nil, err
	}
	go c.serve()
	var rc uintptr
	c.do(func() { rc = c.init() })
	if rc != 0 {
		return nil, fmt.Errorf("collective: MPI_Init_thread in %s failed with code %d: check the MPI installation or set %s to another Open MPI", name, rc, EnvMPILib)
	}
	return c, nil
}

func dlopenFirst(names []string) (uintptr, string, error) {
	var whys []string
	for _, n := range names {
		h, err := purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return h, n, nil
		}
		whys = append(whys, err.Error())
	}
	return 0, "", fmt.Errorf("collective: cannot load MPI library %s (%s): install Open MPI (apt-get install openmpi-bin) or set %s to the path of its libmpi.so.40",
		strings.Join(names, " or "), strings.Join(whys, "; "), EnvMPILib)
}

// bind looks up the functions and Open MPI's predefined handles, the
// addresses of its exported globals.
func (c *MPI) bind(h uintptr) error {
	syms := []struct {
		p    *uintptr
		name string
	}{
		{&c.comm, "ompi_mpi_comm_world"}, {&c.tFloat, "ompi_mpi_float"}, {&c.tDouble, "ompi_mpi_double"},
		{&c.tByte, "ompi_mpi_byte"}, {&c.tInt, "ompi_mpi_int"}, {&c.opSum, "ompi_mpi_op_sum"},
		{&c.fn.initThread, "MPI_Init_thread"}, {&c.fn.initialized, "MPI_Initialized"},
		{&c.fn.finalize, "MPI_Finalize"}, {&c.fn.abort, "MPI_Abort"}, {&c.fn.rank, "MPI_Comm_rank"},
		{&c.fn.size, "MPI_Comm_size"}, {&c.fn.version, "MPI_Get_library_version"},
		{&c.fn.allreduce, "MPI_Allreduce"}, {&c.fn.bcast, "MPI_Bcast"}, {&c.fn.gather, "MPI_Gather"},
		{&c.fn.gatherv, "MPI_Gatherv"}, {&c.fn.barrier, "MPI_Barrier"},
	}
	for _, s := range syms {
		p, err := purego.Dlsym(h, s.name)
		if err != nil || p == 0 {
			return fmt.Errorf("no symbol %s", s.name)
		}
		*s.p = p
	}
	return nil
}

// checkVersion requires MPI_Get_library_version to name Open MPI (it may
// be called before MPI_Init).
func (c *MPI) checkVersion() error {
	buf := make([]byte, mpiMaxLibVersion)
	var n int32
	purego.SyscallN(c.fn.version, uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)))
	v := string(bytes.TrimRight(buf[:max(0, min(int(n), len(buf)))], "\x00\n"))
	if !strings.Contains(v, "Open MPI") {
		return fmt.Errorf("collective: %s reports %q, not Open MPI: set %s to the path of Open MPI's libmpi.so.40", c.lib, v, EnvMPILib)
	}
	return nil
}

// Version is the library's MPI_Get_library_version string, first line.
func (c *MPI) Version() string {
	buf := make([]byte, mpiMaxLibVersion)
	var n int32
	purego.SyscallN(c.fn.version, uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)))
	v, _, _ := strings.Cut(string(buf[:max(0, min(int(n), len(buf)))]), "\n")
	return strings.TrimRight(v, "\x00, ")
}

// Library is the file name or path that loaded.
func (c *MPI) Library() string { return c.lib }

// serve runs the MPI calls on one OS thread.
func (c *MPI) serve() {
	runtime.LockOSThread()
	for f := range c.calls {
		f()
	}
}

// do runs f on the MPI thread and waits for it.
func (c *MPI) do(f func()) {
	done := make(chan struct{})
	c.calls <- func() { f(); close(done) }
	<-done
}

// init runs on the MPI thread: MPI_Init_thread unless MPI is already
// initialised, then rank and size. Open MPI's own handlers of SIGSEGV and
// the like are turned off (unless the user set opal_signal), as the Go
// runtime relies on its own.
func (c *MPI) init() uintptr {
	if _, ok := os.LookupEnv("OMPI_MCA_opal_signal"); !ok {
		os.Setenv("OMPI_MCA_opal_signal", "")
	}
	var flag, provided, rank, size int32
	purego.SyscallN(c.fn.initialized, uintptr(unsafe.Pointer(&flag)))
	if flag == 0 {
		if rc, _, _ := purego.SyscallN(c.fn.initThread, 0, 0, mpiThreadFunneled, uintptr(unsafe.Pointer(&provided))); int32(rc) != 0 {
			return rc
		}
	}
	purego.SyscallN(c.fn.rank, c.comm, uintptr(unsafe.Pointer(&rank)))
	purego.SyscallN(c.fn.size, c.comm, uintptr(unsafe.Pointer(&size)))
	c.rank, c.size = int(rank), int(size)
	return 0
}

func (c *MPI) Rank() int { return c.rank }
func (c *MPI) Size() int { return c.size }

// run runs f, which makes one MPI call and returns its code, on the MPI
// thread, and turns a non-zero code into an error naming op. Open MPI's
// default error handler ends the job on most errors before they could be
// returned.
//
// Memory handed to MPI must stay in place during the call, while the
// calling goroutine is parked and its stack may be moved: the callers
// capture each pointer in f, which escapes to the MPI thread, so what it
// points to is on the heap (which does not move), and keep it alive
// (runtime.KeepAlive) until the call has returned.
func (c *MPI) run(op string, f func() uintptr) error {
	var rc uintptr
	c.do(func() { rc = f() })
	if int32(rc) != 0 {
		return fmt.Errorf("collective: %s failed on rank %d with MPI error %d", op, c.rank, int32(rc))
	}
	return nil
}

// syscall calls fn and returns its C int result.
func syscall(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// AllReduceFloat32 sums buf over the ranks in place (MPI_Allreduce,
// MPI_SUM). Open MPI chooses its algorithm from the number of ranks and
// the message size alone, so the order of the additions is fixed for a
// given job, and every rank receives the same result.
func (c *MPI) AllReduceFloat32(buf []float32) error { return allReduceMPI(c, buf, c.tFloat) }

// AllReduceFloat64 is AllReduceFloat32 for float64.
func (c *MPI) AllReduceFloat64(buf []float64) error { return allReduceMPI(c, buf, c.tDouble) }

func allReduceMPI[T float32 | float64](c *MPI, buf []T, datatype uintptr) error {
	for lo := 0; lo < len(buf); lo += maxCount {
		b := buf[lo:min(lo+maxCount, len(buf))]
		p := unsafe.Pointer(&b[0])
		err := c.run("MPI_Allreduce", func() uintptr {
			return syscall(c.fn.allreduce, ompiInPlace, uintptr(p), uintptr(len(b)), datatype, c.opSum, c.comm)
		})
		runtime.KeepAlive(b)
		if err != nil {
			return err
		}
	}
	return nil
}

// Broadcast copies root's buf to every rank (MPI_Bcast).
func (c *MPI) Broadcast(buf []byte, root int) error {
	if err := checkRoot(root, c.size); err != nil {
		return err
	}
	for lo := 0; lo < len(buf); lo += maxCount {
		b := buf[lo:min(lo+maxCount, len(buf))]
		p := unsafe.Pointer(&b[0])
		err := c.run("MPI_Bcast", func() uintptr {
			return syscall(c.fn.bcast, uintptr(p), uintptr(len(b)), c.tByte, uintptr(root), c.comm)
		})
		runtime.KeepAlive(b)
		if err != nil {
			return err
		}
	}
	return nil
}

// Gather collects every rank's data at root: the lengths first
// (MPI_Gather), then the bytes (MPI_Gatherv). The total must stay under
// 2 GiB, the reach of MPI's int displacements.
func (c *MPI) Gather(data []byte, root int) ([][]byte, error) {
	if err := checkRoot(root, c.size); err != nil {
		return nil, err
	}
	if len(data) > math.MaxInt32 {
		return nil, fmt.Errorf("collective: Gather of %d bytes is over MPI's 2 GiB", len(data))
	}
	n := new(int32)
	*n = int32(len(data))
	lens := make([]int32, c.size)
	pn, pl := unsafe.Pointer(n), unsafe.Pointer(&lens[0])
	err := c.run("MPI_Gather", func() uintptr {
		return syscall(c.fn.gather, uintptr(pn), 1, c.tInt, uintptr(pl), 1, c.tInt, uintptr(root), c.comm)
	})
	runtime.KeepAlive(n)
	if err != nil {
		return nil, err
	}
	displs := make([]int32, c.size)
	total := int64(0)
	for i, l := range lens {
		if total+int64(l) > math.MaxInt32 {
			return nil, fmt.Errorf("collective: Gather of %d bytes in all is over MPI's 2 GiB", total+int64(l))
		}
		displs[i] = int32(total)
		total += int64(l)
	}
	recv := make([]byte, total+1) // +1: a valid address when every rank sends nothing
	send := append(data[:len(data):len(data)], 0)
	ps, pr, pd := unsafe.Pointer(&send[0]), unsafe.Pointer(&recv[0]), unsafe.Pointer(&displs[0])
	err = c.run("MPI_Gatherv", func() uintptr {
		return syscall(c.fn.gatherv, uintptr(ps), uintptr(*n), c.tByte, uintptr(pr), uintptr(pl), uintptr(pd), c.tByte, uintptr(root), c.comm)
	})
	runtime.KeepAlive(send)
	runtime.KeepAlive(recv)
	runtime.KeepAlive(lens)
	runtime.KeepAlive(displs)
	if err != nil || c.rank != root {
		return nil, err
	}
	out := make([][]byte, c.size)
	for i := range out {
		out[i] = recv[displs[i] : displs[i]+lens[i] : displs[i]+lens[i]]
	}
	return out, nil
}

// Barrier waits for every rank (MPI_Barrier).
func (c *MPI) Barrier() error {
	return c.run("MPI_Barrier", func() uintptr { return syscall(c.fn.barrier, c.comm) })
}

// Abort writes msg and ends every rank of the job (MPI_Abort).
func (c *MPI) Abort(code int, msg string) {
	fmt.Fprintf(os.Stderr, "rank %d: %s\n", c.rank, msg)
	c.do(func() { purego.SyscallN(c.fn.abort, c.comm, uintptr(code)) })
	os.Exit(code)
}

// Close finalises MPI (MPI_Finalize), after which the process may exit.
func (c *MPI) Close() error {
	err := c.run("MPI_Finalize", func() uintptr { return syscall(c.fn.finalize) })
	close(c.calls)
	return err
}
