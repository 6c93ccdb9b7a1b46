package policy

// Which backend computes the model (see package policy/backend).

import (
	"fmt"
	"sync"

	"github.com/artist-rl/artist/policy/backend"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

var selected struct {
	once sync.Once
	sel  backend.Selection
	err  error
}

// DefaultBackend returns the backend that new and loaded models compute
// with: chosen once per process by backend.Select, that is the one named
// by ARTIST_BACKEND, else OpenBLAS where libopenblas.so.0 is installed,
// else pure Go. On its first call it also hands the backend's BLAS to
// gonum (blas32, blas64) and gorgonia (G.Use, tensor.Use). Call it at
// start to report the choice, or its error: a forced backend that is
// absent, with what to install.
func DefaultBackend() (backend.Selection, error) {
	selected.once.Do(func() {
		sel, err := backend.Select()
		if err != nil {
			selected.err = fmt.Errorf("policy: %w", err)
			return
		}
		if hb := sel.Backend.HostBLAS(); hb != nil {
			blas32.Use(hb)
			blas64.Use(hb)
			G.Use(hb)
			tensor.Use(hb)
		}
		selected.sel = sel
	})
	return selected.sel, selected.err
}

// defaultBackend is DefaultBackend's backend, or its error.
func defaultBackend() (backend.Backend, error) {
	sel, err := DefaultBackend()
	return sel.Backend, err
}

// Backend returns the backend the model computes with.
func (m *Model) Backend() backend.Backend { return m.be }

// UseBackend makes the model compute with b from now on; compiled
// training graphs are dropped, and the weights are mirrored into b when a
// computation first needs them. Results agree between backends to float32
// rounding, not bit for bit: libraries sum in other orders. Weights an
// optimizer updated on the old backend's device come to the host first
// (HostWeights; it panics when they cannot). Not safe to call while the
// model is in use.
func (m *Model) UseBackend(b backend.Backend) {
	if b == nil {
		panic("policy: UseBackend(nil)")
	}
	if err := m.HostWeights(); err != nil {
		panic(err)
	}
	m.be = b
	m.w = newWeightSet(b) // the old set may be shared (Base), so it is not freed
	m.dropGraphs()
}
