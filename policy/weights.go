package policy

// The model's weights as its backend holds them: one backend tensor per
// Param, made by Memory.Mirror the first time a computation needs it. On
// a host backend the tensor is Param.Data itself (no copy: every in-place
// update is seen at once); on a device backend it is a copy in device
// memory, which SyncWeights refreshes after the host values change. A
// parameter frozen in bfloat16 (Freeze16) has no float32 tensor: on a
// device backend that widens (backend.Widener) its bits are mirrored
// once, two values a slot (half), and Session.weight widens them on the
// device before each product; elsewhere Session.weight widens them on
// the host.

import (
	"fmt"
	"sync"

	"github.com/artist-rl/artist/policy/backend"
)

// weightSet maps a model's parameters to their backend tensors. Models
// that share their Params (Base) share it; it is safe for concurrent use.
type weightSet struct {
	mu    sync.Mutex
	be    backend.Backend
	t     map[*Param]mirrored
	h     map[*Param]halfMirror     // bfloat16 weights (Freeze16) on a backend.Widener
	g     map[*Param]backend.Tensor // device gradients (resident.go)
	tab   backend.Tensor            // the embedding gradient's scatter table on a device, [V, C]
	ahead bool                      // an optimizer updated t on the device: Param.Data is stale
	// train widens the frozen weights (Freeze16) for the training graphs
	// of the models sharing the set, which run one at a time (Backward
	// is not concurrent, and a frozen model trains only its adapters).
	train frozenReader
}

// mirrored is a parameter's tensor and the slice it mirrors, so that a
// Param whose Data was replaced gets a new tensor.
type mirrored struct {
	t    backend.Tensor
	data *float32
	n    int
}

// halfMirror is a frozen parameter's bfloat16 tensor (backend.Widener's
// MirrorBF16) and the bits it mirrors.
type halfMirror struct {
	t    backend.Tensor
	bits *uint16
	n    int
}

func newWeightSet(be backend.Backend) *weightSet {
	return &weightSet{be: be, t: map[*Param]mirrored{}, h: map[*Param]halfMirror{}, g: map[*Param]backend.Tensor{}}
}

// tensor returns p's backend tensor, mirroring p.Data on first use; a nil
// p, or one without float32 weights (frozen in bfloat16: Session.weight
// widens those), gives an empty tensor.
func (w *weightSet) tensor(p *Param) (backend.Tensor, error) {
	if p == nil || len(p.Data) == 0 {
		return backend.Tensor{}, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if mt, ok := w.t[p]; ok && mt.data == &p.Data[0] && mt.n == len(p.Data) {
		return mt.t, nil
	}
	t, err := w.be.Mirror(p.Data)
	if err != nil {
		return backend.Tensor{}, fmt.Errorf("policy: weights of %s: %w", p.Name, err)
	}
	if old, ok := w.t[p]; ok {
		w.be.Free(old.t)
	}
	w.t[p] = mirrored{t: t, data: &p.Data[0], n: len(p.Data)}
	return t, nil
}

// half returns the tensor of p's bfloat16 weights in wd, the weight
// set's backend, mirroring p's bits once (MirrorBF16) on first use. p
// must be frozen (Frozen16).
func (w *weightSet) half(wd backend.Widener, p *Param) (backend.Tensor, error) {
	if len(p.half) == 0 {
		return backend.Tensor{}, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if mt, ok := w.h[p]; ok && mt.bits == &p.half[0] && mt.n == len(p.half) {
		return mt.t, nil
	}
	t, err := wd.MirrorBF16(p.half)
	if err != nil {
		return backend.Tensor{}, fmt.Errorf("policy: bfloat16 weights of %s: %w", p.Name, err)
	}
	if old, ok := w.h[p]; ok {
		w.be.Free(old.t)
	}
	w.h[p] = halfMirror{t: t, bits: &p.half[0], n: len(p.half)}
	return t, nil
}

// sync uploads every mirrored parameter's host values again. It
// refuses while the device is ahead: the upload would undo updates. The
// bfloat16 tensors stay: nothing writes a frozen parameter's bits in
// place (half notices bits that were replaced).
func (w *weightSet) sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ahead {
		return fmt.Errorf("policy: SyncWeights: the device holds weights newer than Param.Data (an optimizer updated them there): call HostWeights before writing Param.Data")
	}
	for p, mt := range w.t {
		if len(p.Data) == 0 || mt.data != &p.Data[0] || mt.n != len(p.Data) {
			w.be.Free(mt.t)
			delete(w.t, p) // mirrored again on next use
			continue
		}
		if err := w.be.Upload(mt.t, p.Data); err != nil {
			return fmt.Errorf("policy: sync weights of %s: %w", p.Name, err)
		}
	}
	return nil
}

// free releases every tensor.
func (w *weightSet) free() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for p, mt := range w.t {
		w.be.Free(mt.t)
		delete(w.t, p)
	}
	for p, mt := range w.h {
		w.be.Free(mt.t)
		delete(w.h, p)
	}
	for p, g := range w.g {
		w.be.Free(g)
		delete(w.g, p)
	}
	w.be.Free(w.tab)
	w.tab = backend.Tensor{}
	w.train.free(w.be)
}

// weight returns p's backend tensor (see weightSet).
func (m *Model) weight(p *Param) (backend.Tensor, error) { return m.w.tensor(p) }

// SyncWeights makes the backend's copy of the weights equal Param.Data
// again, after the host values were written (an optimizer step, a merge,
// a load into the same Params). On a host backend the backend's tensors
// are Param.Data, so it copies nothing; on a device backend it uploads
// every parameter that a computation has used, and refuses while an
// optimizer's updates on the device have not been brought to the host
// (HostWeights). Not safe to call while the model computes.
func (m *Model) SyncWeights() error { return m.w.sync() }
