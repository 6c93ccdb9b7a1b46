package cuda_test

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend/cuda"
)

// Open the GPU, or learn what this machine lacks. Programs usually get
// the backend through the registry (backend.Select, ARTIST_BACKEND=cuda).
func ExampleOpen() {
	b, err := cuda.Open()
	if err != nil {
		fmt.Println(err) // e.g. cuda: no NVIDIA driver (libcuda.so.1): install the NVIDIA driver or set ARTIST_CUDA_LIBDIR
		return
	}
	x, err := b.Mirror([]float32{1, 2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Free(x)
	if err := b.Scale(x, 2); err != nil {
		fmt.Println(err)
		return
	}
	out := make([]float32, 3)
	if err := b.Download(out, x); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Info(), out)
}

// The files tried for cuBLASLt, in order.
func ExampleLibraryCandidates() {
	sp := cuda.SearchPath{
		LibDir:       "/opt/cuda/lib",
		StandardDirs: []string{"/usr/local/cuda/lib64"},
		SitePackages: []string{"/usr/lib/python3/dist-packages"},
	}
	for _, c := range cuda.LibraryCandidates(sp, []string{"libcublasLt.so.13", "libcublasLt.so.12"}) {
		fmt.Println(c)
	}
	// Output:
	// /opt/cuda/lib/libcublasLt.so.13
	// /opt/cuda/lib/libcublasLt.so.12
	// libcublasLt.so.13
	// libcublasLt.so.12
	// /usr/local/cuda/lib64/libcublasLt.so.13
	// /usr/local/cuda/lib64/libcublasLt.so.12
	// /usr/lib/python3/dist-packages/nvidia/cu13/lib/libcublasLt.so.13
	// /usr/lib/python3/dist-packages/nvidia/cu13/lib/libcublasLt.so.12
	// /usr/lib/python3/dist-packages/nvidia/cublas/lib/libcublasLt.so.13
	// /usr/lib/python3/dist-packages/nvidia/cublas/lib/libcublasLt.so.12
}

// The row-major c [2, 3] = a [2, 4] · bᵀ (b stored [3, 4]) is the
// column-major cᵀ [3, 2] = op(b) · op(a), b transposed: cuBLASLt's A is
// b.
func ExampleColMajorGEMM() {
	g := cuda.ColMajorGEMM(false, true, 2, 3, 4)
	fmt.Printf("transa=%v transb=%v m=%d n=%d k=%d lda=%d ldb=%d ldc=%d\n",
		g.TransA, g.TransB, g.M, g.N, g.K, g.A.LD, g.B.LD, g.C.LD)
	// Output:
	// transa=T transb=N m=3 n=2 k=4 lda=4 ldb=4 ldc=3
}
