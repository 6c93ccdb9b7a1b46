//go:build linux

package kernels_test

import (
	"fmt"
	"runtime"

	"github.com/artist-rl/artist/policy/backend/cuda/kernels"
)

// The emulator runs the module's CUDA C on the host: a device address is
// a host address. A CUDA backend passes its own Launcher (cuLaunchKernel)
// and device addresses instead.
func Example() {
	emu, err := kernels.NewEmulator()
	if err != nil {
		fmt.Println(err)
		return
	}
	x := []float32{1, 2, 3, 4, -1, 0, 1, 0} // [N=2, C=4]
	w := []float32{1, 1, 1, 2}
	y := make([]float32, len(x))
	// HostAddr keeps the slices off the goroutine stack, which can move.
	at := kernels.HostAddr[float32]
	if err := kernels.RMSNorm(emu, at(y), at(x), at(w), 2, 4, 1e-6); err != nil {
		fmt.Println(err)
		return
	}
	runtime.KeepAlive(x)
	runtime.KeepAlive(w)
	fmt.Printf("%.4f\n", y)
	// Output:
	// [0.3651 0.7303 1.0954 2.9212 -1.4142 0.0000 1.4142 0.0000]
}
