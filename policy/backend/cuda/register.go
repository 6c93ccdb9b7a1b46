package cuda

import (
	"errors"
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// Preferences in the backend registry: "cuda" above OpenBLAS (10), so a
// machine with a GPU uses it; "cudaemu" below zero, so it is used only
// when ARTIST_BACKEND names it.
const (
	Preference         = 20
	EmulatedPreference = -10
)

func init() {
	backend.Register("cuda", Preference, func() (backend.Backend, error) { return Open() })
	backend.Register("cudaemu", EmulatedPreference, func() (backend.Backend, error) { return OpenEmulated() })
}

// Open returns the backend on the process's first GPU (the first that
// CUDA_VISIBLE_DEVICES lists), loading the driver (libcuda.so.1) and
// cuBLASLt from DefaultSearchPath. Its error is one line that says what
// is missing and how to fix it: the automatic choice of a backend prints
// it when it passes over "cuda".
func Open() (*Backend, error) {
	return openWith(DefaultSearchPath())
}

func openWith(sp SearchPath) (*Backend, error) {
	g, err := openGPU(sp)
	if err != nil {
		return nil, explain(err)
	}
	return newBackend("cuda", g), nil
}

// explain shortens err to what is missing and its fix, keeping the
// sentinel for errors.Is; the loader's details are dropped (set
// LibDirEnv, or run with LD_DEBUG=libs, to see where it looked).
func explain(err error) error {
	switch {
	case errors.Is(err, ErrNoDriver):
		return fmt.Errorf("%w: install the NVIDIA driver or set %s", ErrNoDriver, LibDirEnv)
	case errors.Is(err, ErrNoDevice):
		return fmt.Errorf("%w: check nvidia-smi and CUDA_VISIBLE_DEVICES", ErrNoDevice)
	case errors.Is(err, ErrNoCuBLASLt):
		return fmt.Errorf("%w: set %s to its folder or install it (the CUDA toolkit, or NVIDIA's cuBLAS wheel)", ErrNoCuBLASLt, LibDirEnv)
	}
	return fmt.Errorf("%w (check nvidia-smi)", err)
}

func newBackend(name string, dev device) *Backend {
	return &Backend{name: name, dev: dev, pool: newPool(dev)}
}

// OpenEmulated returns the backend over the emulated device: host memory
// and the kernels' CUDA C run on the CPU (see package kernels' Emulator).
// It is for tests: slow, but every line of the backend above the device
// runs as on a GPU.
func OpenEmulated() (*Backend, error) {
	e, err := newEmu()
	if err != nil {
		return nil, err
	}
	return newBackend("cudaemu", e), nil
}
