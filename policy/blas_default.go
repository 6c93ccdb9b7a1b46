//go:build !openblas

package policy

// The default build does all matrix products in pure Go (gonum). Build
// with -tags openblas to use OpenBLAS instead (see blas_openblas.go).

const blasName = "gonum"
