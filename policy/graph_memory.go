package policy

// Where the training graph's values live. gorgonia sees every value as a
// host tensor.Dense (its shape, and on a host backend its data); the
// kernels see backend tensors. On a host backend a value's tensor is its
// Dense's data itself. On a device backend every value a kernel reads or
// writes has a device tensor of its own, registered by the address of its
// Dense's data, which then only carries the shape: kernel outputs (one
// device buffer per planned slot), saved values, the weights (the model's
// mirrors), and the batch inputs (uploaded every run). Every node of the
// graph is a kernel of ours (graph_backprop.go); a value that had no
// tensor would make the kernel reading it fail with an error that says
// so.

import (
	"fmt"
	"runtime"

	"github.com/artist-rl/artist/policy/backend"
)

// graphMemory maps a graph's values to backend tensors.
type graphMemory struct {
	be    backend.Backend
	w     *weightSet                  // the model's weights and, on a device, gradients
	host  bool                        // be computes on host tensors (HostBLAS is not nil)
	t     map[*float32]backend.Tensor // device: the tensor of a value, by its host data
	owned []backend.Tensor            // device tensors the graph allocated, freed by release
	freed []func()                    // host arenas the graph mapped, unmapped by release
}

func newGraphMemory(be backend.Backend, w *weightSet) *graphMemory {
	return &graphMemory{be: be, w: w, host: be.HostBLAS() != nil, t: map[*float32]backend.Tensor{}}
}

// of returns the backend tensor of the value whose host data is d.
func (gm *graphMemory) of(d []float32) (backend.Tensor, error) {
	if gm == nil || gm.host || len(d) == 0 {
		return backend.Host(d), nil
	}
	t, ok := gm.t[&d[0]]
	if !ok || t.Len() != len(d) {
		return backend.Tensor{}, fmt.Errorf("policy: a graph value of %d values is not in the backend's memory", len(d))
	}
	return t, nil
}

// register makes t the tensor of the value whose host data is d.
func (gm *graphMemory) register(d []float32, t backend.Tensor) {
	if gm != nil && !gm.host && len(d) > 0 {
		gm.t[&d[0]] = t
	}
}

// alloc gives the value whose host data is d a tensor of its own: d
// itself on a host backend, a new device tensor otherwise.
func (gm *graphMemory) alloc(d []float32) (backend.Tensor, error) {
	if gm == nil || gm.host || len(d) == 0 {
		return backend.Host(d), nil
	}
	t, err := gm.be.Alloc(len(d))
	if err != nil {
		return backend.Tensor{}, err
	}
	gm.owned = append(gm.owned, t)
	gm.register(d, t)
	return t, nil
}

// mirror registers the weights of p (the model's backend tensor).
func (gm *graphMemory) mirror(m *Model, p *Param) error {
	if gm.host {
		return nil
	}
	t, err := m.weight(p)
	if err != nil {
		return err
	}
	gm.register(p.Data, t)
	return nil
}

// upload copies host values d into their tensor (nothing on a host
// backend, where they are the tensor).
func (gm *graphMemory) upload(d []float32) error {
	if gm.host {
		return nil
	}
	t, err := gm.of(d)
	if err != nil {
		return err
	}
	return gm.be.Upload(t, d)
}

// download brings the tensor of host values d back into d (nothing on a
// host backend).
func (gm *graphMemory) download(d []float32) error {
	if gm == nil || gm.host {
		return nil
	}
	t, err := gm.of(d)
	if err != nil {
		return err
	}
	return gm.be.Download(d, t)
}

// release frees the device tensors the graph allocated and unmaps its
// host arenas.
func (gm *graphMemory) release() {
	for _, t := range gm.owned {
		gm.be.Free(t)
	}
	for _, f := range gm.freed {
		f()
	}
	gm.owned, gm.freed, gm.t = nil, nil, map[*float32]backend.Tensor{}
}

// arena returns n zeroed values the graph owns in one piece: on a host
// backend outside the Go heap (hostArena), unmapped by release or once gm
// is collected; a device tensor freed by release otherwise.
func (gm *graphMemory) arena(n int) (backend.Tensor, error) {
	if !gm.host {
		return gm.scratch(n)
	}
	mem, free := hostArena(n)
	gm.freed = append(gm.freed, free)
	runtime.AddCleanup(gm, func(free func()) { free() }, free)
	return backend.Host(mem), nil
}

// addGrad adds t [len(p.Data)] into p's gradient, element by element:
// into Param.Grad on a host backend (t is a host tensor), into the
// model's device gradient (Model.GradTensor) with the backend's Add
// otherwise, the same sums; nothing comes back to the host.
func (gm *graphMemory) addGrad(p *Param, t backend.Tensor) error {
	if gm.host {
		src, grad := t.Host(), p.Grad
		parallelChunks(len(src), func(lo, hi int) { add(grad[lo:hi], src[lo:hi]) })
		return nil
	}
	g, err := gm.w.grad(p)
	if err != nil {
		return err
	}
	return gm.be.Add(g, t)
}

// scratch returns a zeroed tensor of n values that the graph owns: a Go
// slice on a host backend, a device tensor freed by release otherwise.
func (gm *graphMemory) scratch(n int) (backend.Tensor, error) {
	if gm == nil || gm.host {
		return backend.Host(make([]float32, n)), nil
	}
	t, err := gm.be.Alloc(n)
	if err != nil {
		return backend.Tensor{}, err
	}
	gm.owned = append(gm.owned, t)
	return t, nil
}

// constant returns a tensor holding x, which the graph only reads: x
// itself on a host backend, an uploaded copy freed by release otherwise.
func (gm *graphMemory) constant(x []float32) (backend.Tensor, error) {
	if gm == nil || gm.host {
		return backend.Host(x), nil
	}
	t, err := gm.be.Mirror(x)
	if err != nil {
		return backend.Tensor{}, err
	}
	gm.owned = append(gm.owned, t)
	return t, nil
}

// param returns the backend tensor of p's weights (nil p: empty): Data
// itself on a host backend, the model's mirror registered by bind
// otherwise.
func (gm *graphMemory) param(p *Param) (backend.Tensor, error) {
	if p == nil {
		return backend.Tensor{}, nil
	}
	return gm.of(p.Data)
}
