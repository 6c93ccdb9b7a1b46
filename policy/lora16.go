package policy

// Adapters that train over a base frozen in bfloat16 (model.lora.base_dtype
// bf16): the base's decoder-layer linear weights are held as Freeze16
// holds them, and every computation that reads one, forward or backward,
// training graph or decoding session, reads it widened to float32 into a
// scratch (frozenReader), exactly as the forward passes of a frozen model
// do. The gradient with respect to a layer's input goes through the
// widened weights; the frozen weights themselves get none.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// FreezeBase16 is Freeze16 for a model that goes on training adapters
// (AttachLoRA, before or after): it brings weights an optimizer updated
// on a device to the host first (HostWeights), rounds the decoder-layer
// linear weights to bfloat16, and frees their float32 copies and
// gradients, on the host and in the backend's memory. From then on
// Backward, with adapters attached, computes the log-probs and the
// adapters' gradients of a float32 model whose layer weights were
// rounded to bfloat16, reading each frozen matrix widened for its
// product; without adapters it returns ErrFrozen16, as the frozen
// weights would be the ones to train. The error is HostWeights'; nothing
// is frozen then. It cannot be undone; not safe while the model computes.
func (m *Model) FreezeBase16() error {
	if err := m.HostWeights(); err != nil {
		return fmt.Errorf("policy: FreezeBase16: %w", err)
	}
	for _, p := range m.frozenParams() {
		p.freeze16()
		m.w.forget(p)
	}
	m.dropGraphs()
	return nil
}

// trainsFrozen reports whether a parameter Backward would give a gradient
// to (TrainParams) is frozen in bfloat16: a frozen model without
// adapters.
func (m *Model) trainsFrozen() bool {
	for _, p := range m.TrainParams() {
		if p.half != nil {
			return true
		}
	}
	return false
}

// forget frees p's float32 tensor and gradient in the backend, once p is
// frozen in bfloat16 (nothing reads them again).
func (w *weightSet) forget(p *Param) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if mt, ok := w.t[p]; ok {
		w.be.Free(mt.t)
		delete(w.t, p)
	}
	if g, ok := w.g[p]; ok {
		w.be.Free(g)
		delete(w.g, p)
	}
}

// frozenReader hands out the float32 weights of parameters frozen in
// bfloat16 for one product at a time. A device backend that widens
// (backend.Widener) widens them there from the bfloat16 copy the model
// mirrored once (weightSet.half) into a scratch of the largest frozen
// matrix; elsewhere they are widened on the host and mirrored (a host
// backend then copies nothing; a device backend without Widener uploads
// them every call). Each Session holds one, and the training graphs of a
// model share one (weightSet.train); free releases its backend memory.
type frozenReader struct {
	wide widener        // the host's widening scratch
	t    backend.Tensor // the weights of the product under way, or the device scratch
}

// weight returns the frozen p's float32 weights as m's backend holds them,
// valid until the next call.
func (f *frozenReader) weight(m *Model, p *Param) (backend.Tensor, error) {
	if wd, ok := m.deviceWidener(); ok {
		return f.device(m, wd, p)
	}
	m.be.Free(f.t)
	t, err := m.be.Mirror(f.wide.weights(p))
	if err != nil {
		f.t = backend.Tensor{}
		return backend.Tensor{}, err
	}
	f.t = t
	return t, nil
}

// device widens the frozen p on wd into the scratch, which it allocates
// once at the size of m's largest frozen matrix; nothing is uploaded
// after the first call for p.
func (f *frozenReader) device(m *Model, wd backend.Widener, p *Param) (backend.Tensor, error) {
	src, err := m.w.half(wd, p)
	if err != nil {
		return backend.Tensor{}, err
	}
	if f.t.Len() < p.Len() {
		m.be.Free(f.t)
		f.t = backend.Tensor{}
		t, err := m.be.Alloc(m.largestFrozen())
		if err != nil {
			return backend.Tensor{}, fmt.Errorf("policy: scratch for the bfloat16 weights: %w", err)
		}
		f.t = t
	}
	dst := f.t.Slice(0, p.Len())
	if err := wd.WidenBF16(dst, src); err != nil {
		return backend.Tensor{}, fmt.Errorf("policy: widen the bfloat16 weights of %s: %w", p.Name, err)
	}
	return dst, nil
}

// free releases the reader's backend memory; it may be used again after.
func (f *frozenReader) free(be backend.Backend) {
	be.Free(f.t)
	f.t = backend.Tensor{}
}

// widened returns a float32 copy of m (no gradients, no adapters) whose
// weights frozen in bfloat16 are widened back to float32: the model m
// computes with, as one that can be merged into and saved in full.
func (m *Model) widened() (*Model, error) {
	c, err := m.clone()
	if err != nil {
		return nil, err
	}
	for _, p := range c.Params {
		if p.half != nil {
			p.Data = make([]float32, len(p.half))
			widenBF16(p.Data, p.half)
			p.half = nil
		}
	}
	return c, nil
}
