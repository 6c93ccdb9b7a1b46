// Package cpu holds the host backends of package policy/backend and
// registers them: "go", every kernel in Go with gonum's pure-Go BLAS, and
// "openblas", the same Go kernels with the matrix products in OpenBLAS,
// which is loaded at run time (libopenblas.so.0; Debian and Ubuntu ship
// it in libopenblas0-pthread). Nothing here needs cgo.
//
// The Go kernels parallelize over rows, sequences and heads on backend.Threads()
// goroutines; splitting work that way changes no result. On amd64 with
// AVX2, the exponential, AdamW's update and the products (op(a)·b as
// gonum's axpy loops, 32 columns at a time with AVX-512; a·bᵀ as gonum's
// dot products, its lanes and its 64-blocks along k) run in assembly
// kernels that do the Go code's (and gonum's) operations in the same
// order, so they give the same bits. The pure-Go backend's
// arithmetic is the reference the other backends are tested against, and
// it is that of the model before backends existed.
package cpu
