package cpu

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

func init() {
	backend.Register("go", 0, func() (backend.Backend, error) { return NewGo(), nil })
	backend.Register("openblas", 10, func() (backend.Backend, error) { return OpenOpenBLAS() })
}

// Backend runs every kernel in Go on host tensors and hands its matrix
// products to a BLAS: gonum's pure-Go one (NewGo) or OpenBLAS
// (OpenOpenBLAS). Both run the same Go code around the products.
type Backend struct {
	name    string
	blas    backend.HostBLAS
	info    func() backend.Info
	splitMN bool // split large products among goroutines (the library runs one thread per call)
}

var _ backend.Backend = (*Backend)(nil)

// NewGo returns the pure-Go backend: gonum's BLAS (with gonum's results
// computed faster where gemm_go.go can), always available. Its arithmetic
// is the reference the other backends are tested against.
func NewGo() *Backend {
	return &Backend{name: "go", blas: goBLAS{}, info: func() backend.Info {
		return backend.Info{Name: "go", Threads: backend.Threads()}
	}}
}

// Info describes the backend now (thread counts can change at run time).
func (b *Backend) Info() backend.Info { return b.info() }

// HostBLAS returns the BLAS the backend uses for its products.
func (b *Backend) HostBLAS() backend.HostBLAS { return b.blas }

// Alloc returns a zeroed host tensor.
func (b *Backend) Alloc(n int) (backend.Tensor, error) { return backend.Host(make([]float32, n)), nil }

// Mirror returns Host(x): the tensor is x, no copy.
func (b *Backend) Mirror(x []float32) (backend.Tensor, error) { return backend.Host(x), nil }

// Free does nothing: the garbage collector frees host tensors.
func (b *Backend) Free(backend.Tensor) {}

// Upload copies src into the host tensor dst, nothing when they share
// their storage.
func (b *Backend) Upload(dst backend.Tensor, src []float32) error {
	if err := onHost("Upload", dst); err != nil {
		return err
	}
	d := host(dst)
	if len(d) != len(src) {
		return fmt.Errorf("cpu: Upload of %d values into a tensor of %d", len(src), len(d))
	}
	if len(d) > 0 && &d[0] != &src[0] {
		copy(d, src)
	}
	return nil
}

// Zero sets the host tensor t to zeros.
func (b *Backend) Zero(t backend.Tensor) error {
	if err := onHost("Zero", t); err != nil {
		return err
	}
	clear(host(t))
	return nil
}

// Download copies the host tensor src into dst, nothing when they share
// their storage.
func (b *Backend) Download(dst []float32, src backend.Tensor) error {
	if err := onHost("Download", src); err != nil {
		return err
	}
	s := host(src)
	if len(s) != len(dst) {
		return fmt.Errorf("cpu: Download of a tensor of %d values into %d", len(s), len(dst))
	}
	if len(s) > 0 && &s[0] != &dst[0] {
		copy(dst, s)
	}
	return nil
}

// host returns the storage of a host tensor, nil for an empty one; a
// device tensor is a programmer error.
func host(t backend.Tensor) []float32 {
	if !t.OnHost() {
		panic("cpu: got a device tensor; the cpu backends compute on host tensors only")
	}
	if t.Len() == 0 {
		return nil
	}
	return t.Host()
}

// onHost returns an error naming the kernel when one of ts is a device
// tensor, which the cpu backends cannot read.
func onHost(kernel string, ts ...backend.Tensor) error {
	for _, t := range ts {
		if !t.OnHost() {
			return fmt.Errorf("cpu: %s got a device tensor; the cpu backends compute on host tensors only", kernel)
		}
	}
	return nil
}
