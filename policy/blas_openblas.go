//go:build openblas

package policy

// An OpenBLAS back end for the matrix products, chosen at build time with
// -tags openblas (cgo; needs the libopenblas-dev package). It overrides the
// level-2 and level-3 routines the model uses and keeps gonum's pure-Go
// code for everything else and for any call it does not handle.

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
*/
import "C"

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

const blasName = "openblas"

func init() {
	impl := openBLAS{}
	blas32.Use(impl)
	blas64.Use(impl)
	G.Use(impl)
	tensor.Use(impl)
}

// openBLAS calls OpenBLAS for Sgemm, Sgemv, Sger and their float64
// versions when the arguments are row-major views that fit their slices
// (unit strides for vectors); otherwise, and for every other routine, it
// falls back to gonum, which also reports bad arguments.
type openBLAS struct{ gonum.Implementation }

func trans(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == blas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

// fits reports whether a holds an op(rows×cols) row-major matrix with
// leading dimension lda.
func fits[T float32 | float64](t blas.Transpose, rows, cols int, a []T, lda int) bool {
	if t != blas.NoTrans {
		rows, cols = cols, rows
	}
	return rows > 0 && cols > 0 && lda >= cols && len(a) >= lda*(rows-1)+cols
}

func (o openBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if !fits(tA, m, k, a, lda) || !fits(tB, k, n, b, ldb) || !fits(blas.NoTrans, m, n, c, ldc) {
		o.Implementation.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	C.cblas_sgemm(C.CblasRowMajor, trans(tA), trans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.float(alpha), (*C.float)(&a[0]), C.blasint(lda), (*C.float)(&b[0]), C.blasint(ldb),
		C.float(beta), (*C.float)(&c[0]), C.blasint(ldc))
}

func (o openBLAS) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !fits(tA, m, k, a, lda) || !fits(tB, k, n, b, ldb) || !fits(blas.NoTrans, m, n, c, ldc) {
		o.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	C.cblas_dgemm(C.CblasRowMajor, trans(tA), trans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.double(alpha), (*C.double)(&a[0]), C.blasint(lda), (*C.double)(&b[0]), C.blasint(ldb),
		C.double(beta), (*C.double)(&c[0]), C.blasint(ldc))
}

// gemvFits checks a unit-stride matrix-vector product y = op(A)·x.
func gemvFits[T float32 | float64](tA blas.Transpose, m, n int, a []T, lda int, x []T, incX int, y []T, incY int) bool {
	lx, ly := n, m
	if tA != blas.NoTrans {
		lx, ly = m, n
	}
	return fits(blas.NoTrans, m, n, a, lda) && incX == 1 && incY == 1 && len(x) >= lx && len(y) >= ly
}

func (o openBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	if !gemvFits(tA, m, n, a, lda, x, incX, y, incY) {
		o.Implementation.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	C.cblas_sgemv(C.CblasRowMajor, trans(tA), C.blasint(m), C.blasint(n), C.float(alpha),
		(*C.float)(&a[0]), C.blasint(lda), (*C.float)(&x[0]), 1, C.float(beta), (*C.float)(&y[0]), 1)
}

func (o openBLAS) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int, x []float64, incX int, beta float64, y []float64, incY int) {
	if !gemvFits(tA, m, n, a, lda, x, incX, y, incY) {
		o.Implementation.Dgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
		return
	}
	C.cblas_dgemv(C.CblasRowMajor, trans(tA), C.blasint(m), C.blasint(n), C.double(alpha),
		(*C.double)(&a[0]), C.blasint(lda), (*C.double)(&x[0]), 1, C.double(beta), (*C.double)(&y[0]), 1)
}

func (o openBLAS) Sger(m, n int, alpha float32, x []float32, incX int, y []float32, incY int, a []float32, lda int) {
	if !fits(blas.NoTrans, m, n, a, lda) || incX != 1 || incY != 1 || len(x) < m || len(y) < n {
		o.Implementation.Sger(m, n, alpha, x, incX, y, incY, a, lda)
		return
	}
	C.cblas_sger(C.CblasRowMajor, C.blasint(m), C.blasint(n), C.float(alpha),
		(*C.float)(&x[0]), 1, (*C.float)(&y[0]), 1, (*C.float)(&a[0]), C.blasint(lda))
}

func (o openBLAS) Dger(m, n int, alpha float64, x []float64, incX int, y []float64, incY int, a []float64, lda int) {
	if !fits(blas.NoTrans, m, n, a, lda) || incX != 1 || incY != 1 || len(x) < m || len(y) < n {
		o.Implementation.Dger(m, n, alpha, x, incX, y, incY, a, lda)
		return
	}
	C.cblas_dger(C.CblasRowMajor, C.blasint(m), C.blasint(n), C.double(alpha),
		(*C.double)(&x[0]), 1, (*C.double)(&y[0]), 1, (*C.double)(&a[0]), C.blasint(lda))
}
