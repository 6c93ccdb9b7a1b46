package cpu

// The OpenBLAS backend: the Go kernels with their matrix products handed
// to OpenBLAS, which is loaded at run time (dlopen through purego, no cgo).

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/artist-rl/artist/policy/backend"
)

// OpenBLASLibraryEnv, when set, names the OpenBLAS library file to load
// instead of libopenblas.so.0 (a path, or a name dlopen searches for).
const OpenBLASLibraryEnv = "ARTIST_OPENBLAS_LIBRARY"

// openBLASInstall says how to get the library, for error messages.
const openBLASInstall = "install OpenBLAS (Debian/Ubuntu: apt-get install libopenblas0-pthread) or use the pure-Go backend (ARTIST_BACKEND=go)"

// OpenOpenBLAS loads OpenBLAS and returns the backend that uses it. Its
// error says what to install when the library is absent.
//
// Unless OPENBLAS_NUM_THREADS (or GOTO_NUM_THREADS, OMP_NUM_THREADS) says
// otherwise, OpenBLAS runs one thread per call and the backend splits
// large products among backend.Threads() goroutines: the library's own threads
// spin between calls and fight Go's goroutines for the cores, which makes
// small models slower. With the variable set, the library threads as told
// and products go to it whole.
//
// On a CPU with AVX2 and FMA, OpenBLAS is asked for its Haswell kernels
// unless OPENBLAS_CORETYPE names others (see OpenBLASCoreType).
func OpenOpenBLAS() (*Backend, error) {
	lib, err := loadOpenBLAS()
	if err != nil {
		return nil, fmt.Errorf("openblas: %w; %s", err, openBLASInstall)
	}
	ob := &openBLAS{}
	for _, s := range []struct {
		fn   *uintptr
		name string
	}{{&ob.sgemm, "sgemm_"}, {&ob.sgemv, "sgemv_"}, {&ob.sger, "sger_"}, {&ob.dgemm, "dgemm_"}, {&ob.dgemv, "dgemv_"}, {&ob.dger, "dger_"}} {
		if *s.fn, err = lib.Symbol(s.name); err != nil {
			return nil, fmt.Errorf("openblas: %w; %s", err, openBLASInstall)
		}
	}
	var numThreads func() int32
	var setThreads func(int32)
	var coreName func() *byte
	for _, b := range []struct {
		fptr any
		name string
	}{{&numThreads, "openblas_get_num_threads"}, {&setThreads, "openblas_set_num_threads"}, {&coreName, "openblas_get_corename"}} {
		if err := lib.Bind(b.fptr, b.name); err != nil {
			return nil, fmt.Errorf("openblas: %s is not OpenBLAS: %w; %s", lib.Name, err, openBLASInstall)
		}
	}
	if !threadsSet() {
		setThreads(1)
	}
	be := &Backend{name: "openblas", blas: ob, splitMN: numThreads() == 1}
	be.info = func() backend.Info {
		lt := int(numThreads())
		threads := lt
		if be.splitMN {
			threads = backend.Threads()
		}
		return backend.Info{Name: "openblas", Threads: threads, LibraryThreads: lt, Core: backend.GoString(coreName()), Library: lib.Name}
	}
	return be, nil
}

// OpenBLASCoreType is the kernel type OpenBLAS is asked for on CPUs with
// AVX2 and FMA when OPENBLAS_CORETYPE is not set. One type on every such
// CPU means one set of sums: a seed gives the same run on Intel and AMD
// machines (OpenBLAS's Zen kernels give the same bits as these). It also
// keeps OpenBLAS off its SSE3 Prescott kernels, which it falls back to on
// CPUs it does not recognise, as in many virtual machines, and which are
// several times slower. OPENBLAS_CORETYPE, when set, wins (SkylakeX, say,
// for AVX-512 kernels, whose sums differ).
const OpenBLASCoreType = "Haswell"

// loadOpenBLAS loads the library, with OPENBLAS_CORETYPE set to
// OpenBLASCoreType while it starts when the CPU has AVX2 and FMA and the
// variable is not set (OpenBLAS reads it once, as it loads).
func loadOpenBLAS() (*backend.Library, error) {
	if _, set := os.LookupEnv("OPENBLAS_CORETYPE"); !set && hasFMA {
		os.Setenv("OPENBLAS_CORETYPE", OpenBLASCoreType)
		defer os.Unsetenv("OPENBLAS_CORETYPE")
	}
	return backend.LoadLibrary(OpenBLASLibraryEnv, "libopenblas.so.0", "libopenblas.so")
}

// threadsSet reports whether the environment sets OpenBLAS's thread count.
func threadsSet() bool {
	for _, v := range []string{"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// openBLAS calls OpenBLAS for Sgemm, Sgemv, Sger and their float64
// versions when the arguments are row-major views that fit their slices
// (unit strides for vectors) and, for Sgemv, large enough to pay for the
// call; otherwise, and for every other routine, it falls back to gonum,
// which also reports bad arguments. It calls the
// Fortran entry points, whose arguments are all pointers (so the call
// needs no float registers); a row-major product is the column-major one
// of the transposes, which is also what OpenBLAS's row-major C interface
// does, so the results are those of cblas_sgemm.
type openBLAS struct {
	gonum.Implementation
	sgemm, sgemv, sger, dgemm, dgemv, dger uintptr
}

// fargs holds the scalar arguments of one Fortran BLAS call; the call
// passes pointers to its fields.
type fargs[T float32 | float64] struct {
	ta, tb        byte
	m, n, k       int32
	lda, ldb, ldc int32
	incX, incY    int32
	alpha, beta   T
}

func transChar(t blas.Transpose) byte {
	if t == blas.NoTrans {
		return 'N'
	}
	return 'T'
}

// flipChar is the transpose flag of the column-major view of a row-major
// matrix.
func flipChar(t blas.Transpose) byte {
	if t == blas.NoTrans {
		return 'T'
	}
	return 'N'
}

// fits reports whether a holds an op(rows×cols) row-major matrix with
// leading dimension lda.
func fits[T float32 | float64](t blas.Transpose, rows, cols int, a []T, lda int) bool {
	if t != blas.NoTrans {
		rows, cols = cols, rows
	}
	return rows > 0 && cols > 0 && lda >= cols && len(a) >= lda*(rows-1)+cols
}

// gemvFits checks a unit-stride matrix-vector product y = op(A)·x.
func gemvFits[T float32 | float64](tA blas.Transpose, m, n int, a []T, lda int, x []T, incX int, y []T, incY int) bool {
	lx, ly := n, m
	if tA != blas.NoTrans {
		lx, ly = m, n
	}
	return fits(blas.NoTrans, m, n, a, lda) && incX == 1 && incY == 1 && len(x) >= lx && len(y) >= ly
}

func gerFits[T float32 | float64](m, n int, x []T, incX int, y []T, incY int, a []T, lda int) bool {
	return fits(blas.NoTrans, m, n, a, lda) && incX == 1 && incY == 1 && len(x) >= m && len(y) >= n
}

// The calls below convert pointers to uintptr in SyscallN's argument
// list, which keeps what they point to alive and in place for the call.

type up = unsafe.Pointer

// gemm calls ?gemm_ for row-major c = alpha·op(a)·op(b) + beta·c.
func gemm[T float32 | float64](fn uintptr, tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	f := &fargs[T]{ta: transChar(tB), tb: transChar(tA), m: int32(n), n: int32(m), k: int32(k),
		lda: int32(ldb), ldb: int32(lda), ldc: int32(ldc), alpha: alpha, beta: beta}
	purego.SyscallN(fn,
		uintptr(up(&f.ta)), uintptr(up(&f.tb)), uintptr(up(&f.m)), uintptr(up(&f.n)),
		uintptr(up(&f.k)), uintptr(up(&f.alpha)), uintptr(up(&b[0])), uintptr(up(&f.lda)),
		uintptr(up(&a[0])), uintptr(up(&f.ldb)), uintptr(up(&f.beta)), uintptr(up(&c[0])),
		uintptr(up(&f.ldc)))
}

// gemv calls ?gemv_ for row-major y = alpha·op(a)·x + beta·y, unit strides.
func gemv[T float32 | float64](fn uintptr, tA blas.Transpose, m, n int, alpha T, a []T, lda int, x []T, beta T, y []T) {
	f := &fargs[T]{ta: flipChar(tA), m: int32(n), n: int32(m), lda: int32(lda), incX: 1, incY: 1, alpha: alpha, beta: beta}
	purego.SyscallN(fn,
		uintptr(up(&f.ta)), uintptr(up(&f.m)), uintptr(up(&f.n)), uintptr(up(&f.alpha)),
		uintptr(up(&a[0])), uintptr(up(&f.lda)), uintptr(up(&x[0])), uintptr(up(&f.incX)),
		uintptr(up(&f.beta)), uintptr(up(&y[0])), uintptr(up(&f.incY)))
}

// ger calls ?ger_ for row-major a += alpha·x·yᵀ, unit strides.
func ger[T float32 | float64](fn uintptr, m, n int, alpha T, x, y, a []T, lda int) {
	f := &fargs[T]{m: int32(n), n: int32(m), lda: int32(lda), incX: 1, incY: 1, alpha: alpha}
	purego.SyscallN(fn,
		uintptr(up(&f.m)), uintptr(up(&f.n)), uintptr(up(&f.alpha)), uintptr(up(&y[0])),
		uintptr(up(&f.incY)), uintptr(up(&x[0])), uintptr(up(&f.incX)), uintptr(up(&a[0])),
		uintptr(up(&f.lda)))
}

func (o *openBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !fits(tA, m, k, a, lda) || !fits(tB, k, n, b, ldb) || !fits(blas.NoTrans, m, n, c, ldc) {
		o.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemm(o.sgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func (o *openBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !fits(tA, m, k, a, lda) || !fits(tB, k, n, b, ldb) || !fits(blas.NoTrans, m, n, c, ldc) {
		o.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	gemm(o.dgemm, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// minLibGemv is the least m·n for which Sgemv calls the library: below it
// the call costs more than gonum's whole product (decoding attention
// makes thousands of such products per step).
const minLibGemv = 1 << 14

func (o *openBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	if m*n < minLibGemv || !gemvFits(tA, m, n, a, lda, x, incX, y, incY) {
		o.Implementation.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	gemv(o.sgemv, tA, m, n, alpha, a, lda, x, beta, y)
}

func (o *openBLAS) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if !gemvFits(tA, m, n, a, lda, x, incX, y, incY) {
		o.Implementation.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	gemv(o.dgemv, tA, m, n, alpha, a, lda, x, beta, y)
}

func (o *openBLAS) Sger(m, n int, alpha float32, x []float32, incX int, y []float32, incY int, a []float32, lda int) {
	if !gerFits(m, n, x, incX, y, incY, a, lda) {
		o.Implementation.Sger(m, n, alpha, x, incX, y, incY, a, lda)
		return
	}
	ger(o.sger, m, n, alpha, x, y, a, lda)
}

func (o *openBLAS) Dger(m, n int, alpha float64, x []float64, incX int, y []float64, incY int, a []float64, lda int) {
	if !gerFits(m, n, x, incX, y, incY, a, lda) {
		o.Implementation.Dger(m, n, alpha, x, incX, y, incY, a, lda)
		return
	}
	ger(o.dger, m, n, alpha, x, y, a, lda)
}
