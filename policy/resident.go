package policy

// The training state as the backend holds it. On a host backend the
// gradient of a parameter is Param.Grad and its weights Param.Data, so
// nothing here copies. On a device backend the gradients live in device
// tensors of the model's weight set, which the training graph adds into
// and an optimizer reads there; the optimizer updates the weights' device
// tensors in place (WeightsUpdated), and Param.Data is brought up to date
// only when the host reads it (HostWeights: checkpoints, pushes to
// rollout servers, copies). So a training step moves its inputs in and
// its log-probs and metrics out, not the weights or their gradients.

import (
	"errors"
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// onDevice reports whether the model's backend keeps its tensors in
// memory of its own (HostBLAS is nil).
func (m *Model) onDevice() bool { return m.be.HostBLAS() == nil }

// WeightTensor returns p's weights as the model's backend holds them:
// Host(p.Data) on a host backend, the device tensor the model computes
// with otherwise (mirrored on first use). An optimizer that updates it
// in place on a device calls WeightsUpdated after.
func (m *Model) WeightTensor(p *Param) (backend.Tensor, error) {
	if !m.onDevice() {
		return backend.Host(p.Data), nil
	}
	return m.weight(p)
}

// GradTensor returns the tensor that Backward adds p's gradient into:
// Host(p.Grad) on a host backend (EnableGrads allocates it), a device
// tensor of the model's otherwise, zeroed when first made and by
// ZeroGrad. On a device Param.Grad is not written: HostGrads copies the
// device gradients into it.
func (m *Model) GradTensor(p *Param) (backend.Tensor, error) {
	if !m.onDevice() {
		if len(p.Grad) != len(p.Data) {
			return backend.Tensor{}, fmt.Errorf("policy: %s has %d gradients for %d weights (EnableGrads first)", p.Name, len(p.Grad), len(p.Data))
		}
		return backend.Host(p.Grad), nil
	}
	return m.w.grad(p)
}

// WeightsUpdated records that an optimizer changed the weights' device
// tensors in place: Param.Data is stale until HostWeights. Nothing on a
// host backend, where the tensors are Param.Data.
func (m *Model) WeightsUpdated() {
	if m.onDevice() {
		m.w.setAhead()
	}
}

// HostWeights brings Param.Data up to date with the backend's weights
// after an optimizer updated them on a device (WeightsUpdated); nothing
// otherwise. Everything that reads Param.Data of a model that trains on
// a device calls it first: SaveModel, SaveAdapter, Clone, Merged and
// MergeAdapters do. The error is the backend's, when a download fails.
func (m *Model) HostWeights() error { return m.w.hostWeights() }

// HostGrads copies the gradients Backward accumulated on a device into
// Param.Grad (allocating it where missing), for code that reads them on
// the host: an all-reduce staged through host memory, tests. Nothing on
// a host backend.
func (m *Model) HostGrads() error {
	if !m.onDevice() {
		return nil
	}
	for _, p := range m.TrainParams() {
		if len(p.Grad) != len(p.Data) {
			p.Grad = make([]float32, len(p.Data))
		}
		g, err := m.w.grad(p)
		if err != nil {
			return err
		}
		if err := m.be.Download(p.Grad, g); err != nil {
			return fmt.Errorf("policy: gradient of %s: %w", p.Name, err)
		}
	}
	return nil
}

// DeviceGrads copies Param.Grad into the gradients' device tensors, after
// the host changed them (the all-reduce of HostGrads' values). Nothing on
// a host backend.
func (m *Model) DeviceGrads() error {
	if !m.onDevice() {
		return nil
	}
	for _, p := range m.TrainParams() {
		g, err := m.w.grad(p)
		if err != nil {
			return err
		}
		if err := m.be.Upload(g, p.Grad); err != nil {
			return fmt.Errorf("policy: gradient of %s: %w", p.Name, err)
		}
	}
	return nil
}

// zeroGrads zeroes the device gradients made so far.
func (w *weightSet) zeroGrads() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for _, g := range w.g {
		errs = append(errs, w.be.Zero(g))
	}
	return errors.Join(errs...)
}

// grad returns p's device gradient tensor, allocated zeroed on first use.
func (w *weightSet) grad(p *Param) (backend.Tensor, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if g, ok := w.g[p]; ok && g.Len() == len(p.Data) {
		return g, nil
	}
	g, err := w.be.Alloc(len(p.Data))
	if err != nil {
		return backend.Tensor{}, fmt.Errorf("policy: gradient of %s: %w", p.Name, err)
	}
	if old, ok := w.g[p]; ok {
		w.be.Free(old)
	}
	w.g[p] = g
	return g, nil
}

// table returns the device scratch of n values that the training graphs
// of the models sharing w scatter the embedding's gradient into (one
// graph runs at a time), made on first use.
func (w *weightSet) table(n int) (backend.Tensor, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tab.Len() == n {
		return w.tab, nil
	}
	t, err := w.be.Alloc(n)
	if err != nil {
		return backend.Tensor{}, fmt.Errorf("policy: embedding gradient table: %w", err)
	}
	w.be.Free(w.tab)
	w.tab = t
	return t, nil
}

func (w *weightSet) setAhead() {
	w.mu.Lock()
	w.ahead = true
	w.mu.Unlock()
}

// hostWeights downloads every mirrored parameter into its Param.Data when
// the device is ahead.
func (w *weightSet) hostWeights() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ahead {
		return nil
	}
	for p, mt := range w.t {
		if len(p.Data) == 0 || mt.data != &p.Data[0] || mt.n != len(p.Data) {
			return fmt.Errorf("policy: the weights of %s were replaced on the host while the device held newer ones", p.Name)
		}
		if err := w.be.Download(p.Data, mt.t); err != nil {
			return fmt.Errorf("policy: weights of %s: %w", p.Name, err)
		}
	}
	w.ahead = false
	return nil
}
