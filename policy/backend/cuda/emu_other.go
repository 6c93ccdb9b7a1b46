//go:build !unix

package cuda

import "errors"

// emu is the emulated device, which needs anonymous mappings (unix).
type emu struct{ device }

func newEmu() (*emu, error) {
	return nil, errors.New("cudaemu: the emulated device needs a unix system")
}
