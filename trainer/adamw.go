package trainer

import (
	"errors"
	"fmt"
	"math"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/policy/backend"
)

// AdamWConfig sets the optimizer. Defaults are those of PyTorch's AdamW and
// of the TRL/verl GRPO recipes the paper's setup follows.
type AdamWConfig struct {
	// LR is the peak learning rate that a schedule (CosineLR, ConstantLR)
	// scales; Step itself uses the rate it is passed. Default 1e-6; ≥ 0.
	LR float64
	// Beta1 is the first-moment decay. Default 0.9; in [0, 1).
	Beta1 float64
	// Beta2 is the second-moment decay. Default 0.999 (PyTorch's and TRL's
	// default; 0.99 suits short noisy runs better); in [0, 1).
	Beta2 float64
	// Eps is added to the second-moment root. Default 1e-8; > 0.
	Eps float64
	// WeightDecay is decoupled decay, p ← p·(1 − lr·WeightDecay), applied
	// to parameters of two or more dimensions only (not to norms and
	// biases). Default 0.01 (verl); ≥ 0.
	WeightDecay float64
	// MaxGradNorm caps the global L2 norm of all gradients; 0 disables.
	// Default 1.
	MaxGradNorm float64
}

// DefaultAdamWConfig returns the documented defaults.
func DefaultAdamWConfig() AdamWConfig {
	return AdamWConfig{LR: 1e-6, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, MaxGradNorm: 1}
}

// Validate names the first bad field.
func (c AdamWConfig) Validate() error {
	switch {
	case !(c.LR >= 0) || math.IsInf(c.LR, 1):
		return fmt.Errorf("trainer: adamw lr = %g must be a finite value ≥ 0", c.LR)
	case !(c.Beta1 >= 0 && c.Beta1 < 1):
		return fmt.Errorf("trainer: adamw beta1 = %g must be in [0, 1) (usually 0.9)", c.Beta1)
	case !(c.Beta2 >= 0 && c.Beta2 < 1):
		return fmt.Errorf("trainer: adamw beta2 = %g must be in [0, 1) (usually 0.999)", c.Beta2)
	case !(c.Eps > 0) || math.IsInf(c.Eps, 1):
		return fmt.Errorf("trainer: adamw eps = %g must be a finite value > 0 (usually 1e-8)", c.Eps)
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 1):
		return fmt.Errorf("trainer: adamw weight_decay = %g must be a finite value ≥ 0", c.WeightDecay)
	case !(c.MaxGradNorm >= 0) || math.IsInf(c.MaxGradNorm, 1):
		return fmt.Errorf("trainer: adamw max_grad_norm = %g must be a finite value ≥ 0 (0 disables clipping)", c.MaxGradNorm)
	}
	return nil
}

// AdamW is Adam with decoupled weight decay (Loshchilov & Hutter) and global
// gradient-norm clipping, over a fixed list of parameters. Moments are kept
// in float32, like the weights. It is not safe for concurrent use.
//
// The element update runs on a backend, in its memory. On a host backend
// every tensor is the host slice itself and nothing is copied. On a device
// backend the moments live on the device only (State downloads them,
// SetState uploads them). An optimizer of a model's parameters
// (NewModelAdamW) then updates the model's own device tensors of the
// weights in place from its device gradients: per step only the gradient
// norm comes back, one value a parameter. One of bare parameters
// (NewAdamW) uploads their Param.Data and Param.Grad each update and
// downloads Param.Data.
type AdamW struct {
	cfg    AdamWConfig
	be     backend.Backend // runs the element update (Kernels.AdamW)
	device bool            // be keeps its tensors in memory of its own (HostBLAS is nil)
	model  *policy.Model   // on a device, whose weights and gradients the update reads in place; nil for bare parameters
	params []*policy.Param
	m, v   [][]float32 // per param, same length as Data, on a host backend; nil on a device
	mirror []adamTensors
	sq     backend.Tensor // on a device with a model: each gradient's sum of squares, [len(params)]
	step   int            // updates applied so far
}

// adamTensors are one parameter's values as the backend holds them, and
// the slices its weight and gradient tensors mirror.
type adamTensors struct {
	p, g       backend.Tensor // Data and Grad
	m, v       backend.Tensor // the moments: Host(m[i]) on a host backend, the only copy on a device
	data, grad *float32
}

// NewAdamW returns an optimizer at step 0 with zero moments whose element
// update runs on be (pass the model's Backend, so the update runs where the
// weights live). A param without gradient buffers (an inference model's)
// gets zeroed ones. It panics when cfg is invalid, two params share a name,
// a param is frozen in bfloat16 (policy.ErrFrozen16: a reference, or the
// base under adapters, whose TrainParams are the adapters alone), or a
// param's Grad and Data differ in length: the caller wired the model
// wrong.
func NewAdamW(be backend.Backend, params []*policy.Param, cfg AdamWConfig) *AdamW {
	return newAdamW(be, nil, params, cfg)
}

// NewModelAdamW is NewAdamW over params of m (m.TrainParams(), or all of
// m.Params) on m's backend. On a device backend it updates m's own device
// tensors (Model.WeightTensor) from the gradients Backward left on the
// device (Model.GradTensor), in place: Param.Grad is neither read nor
// made, and Param.Data stays stale until Model.HostWeights. On a host
// backend it is NewAdamW(m.Backend(), params, cfg).
func NewModelAdamW(m *policy.Model, params []*policy.Param, cfg AdamWConfig) *AdamW {
	return newAdamW(m.Backend(), m, params, cfg)
}

func newAdamW(be backend.Backend, model *policy.Model, params []*policy.Param, cfg AdamWConfig) *AdamW {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	o := &AdamW{cfg: cfg, be: be, device: be.HostBLAS() == nil, params: params,
		m: make([][]float32, len(params)), v: make([][]float32, len(params)), mirror: make([]adamTensors, len(params))}
	if o.device {
		o.model = model
	}
	seen := make(map[string]bool, len(params))
	for i, p := range params {
		if seen[p.Name] {
			panic(fmt.Sprintf("trainer: NewAdamW: param %q listed twice", p.Name))
		}
		seen[p.Name] = true
		if p.Frozen16() {
			panic(fmt.Sprintf("trainer: NewAdamW: param %q: %v", p.Name, policy.ErrFrozen16))
		}
		if o.model != nil {
			continue // the gradients are the model's device tensors
		}
		if p.Grad == nil {
			p.Grad = make([]float32, len(p.Data))
		}
		if len(p.Grad) != len(p.Data) {
			panic(fmt.Sprintf("trainer: NewAdamW: param %q has %d grads for %d weights", p.Name, len(p.Grad), len(p.Data)))
		}
		if !o.device {
			o.m[i], o.v[i] = make([]float32, len(p.Data)), make([]float32, len(p.Data))
			o.mirror[i].m, o.mirror[i].v = backend.Host(o.m[i]), backend.Host(o.v[i])
		}
	}
	return o
}

// Step applies one update at learning rate lr and returns the global L2
// norm of the gradients before clipping. When that norm exceeds
// MaxGradNorm > 0 every gradient is scaled by MaxGradNorm/norm. Per element,
// with t the new step count:
//
//	p ← p·(1 − lr·λ)                       (matrices only)
//	m ← β1·m + (1−β1)·g,  v ← β2·v + (1−β2)·g²
//	p ← p − lr/(1−β1ᵗ) · m / (√v/√(1−β2ᵗ) + ε)
//
// which is PyTorch's AdamW. Grad is only read: it is neither clipped in
// place nor zeroed. When the norm is NaN or infinite, Step changes nothing
// (weights, moments, step count) and returns NaN, so the caller can log and
// skip the batch. The error is the backend's, when its update kernel
// fails: the parameters from the failed one on are then not updated (the
// step count has moved on).
func (o *AdamW) Step(lr float64) (gradNorm float64, err error) {
	norm, err := o.gradNorm()
	if err != nil {
		return 0, fmt.Errorf("trainer: adamw gradient norm: %w", err)
	}
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return math.NaN(), nil
	}
	scale := 1.0
	if o.cfg.MaxGradNorm > 0 && norm > o.cfg.MaxGradNorm {
		scale = o.cfg.MaxGradNorm / norm
	}
	o.step++
	bc1 := 1 - math.Pow(o.cfg.Beta1, float64(o.step))
	bc2 := 1 - math.Pow(o.cfg.Beta2, float64(o.step))
	for i, p := range o.params {
		decay := 1.0
		if len(p.Shape) >= 2 {
			decay = 1 - lr*o.cfg.WeightDecay
		}
		err := o.update(i, backend.AdamWStep{
			Scale: float32(scale), Decay: float32(decay),
			StepSize: float32(lr / bc1), RootBC2: float32(math.Sqrt(bc2)),
			Beta1: float32(o.cfg.Beta1), Beta2: float32(o.cfg.Beta2), Eps: float32(o.cfg.Eps),
		})
		if err != nil {
			return norm, fmt.Errorf("trainer: adamw %s: %w", p.Name, err)
		}
	}
	if o.model != nil {
		o.model.WeightsUpdated()
	}
	return norm, nil
}

// update runs param i's element update on the backend: its weights and
// gradient go in, the weights come back out (no copy on a host backend,
// whose tensors are the slices).
func (o *AdamW) update(i int, s backend.AdamWStep) error {
	if o.model != nil {
		return o.updateModel(i, s)
	}
	t, err := o.tensors(i)
	if err != nil {
		return err
	}
	p, be := o.params[i], o.be
	if err := be.Upload(t.p, p.Data); err != nil {
		return err
	}
	if err := be.Upload(t.g, p.Grad); err != nil {
		return err
	}
	if err := be.AdamW(t.p, t.g, t.m, t.v, s); err != nil {
		return err
	}
	return be.Download(p.Data, t.p)
}

// tensors returns param i's tensors: the moments, allocated zeroed on a
// device on first use, and the mirrors of Data and Grad, made on first
// use and again when the param's Data or Grad slice was replaced.
func (o *AdamW) tensors(i int) (adamTensors, error) {
	p, t := o.params[i], &o.mirror[i]
	if len(p.Grad) != len(p.Data) {
		return adamTensors{}, fmt.Errorf("%d grads for %d weights", len(p.Grad), len(p.Data))
	}
	if err := o.moments(i); err != nil {
		return adamTensors{}, err
	}
	if len(p.Data) == 0 || (t.data == &p.Data[0] && t.grad == &p.Grad[0]) {
		return *t, nil
	}
	o.be.Free(t.p)
	o.be.Free(t.g)
	t.p, t.g, t.data, t.grad = backend.Tensor{}, backend.Tensor{}, nil, nil
	pt, err := o.be.Mirror(p.Data)
	if err != nil {
		return adamTensors{}, err
	}
	gt, err := o.be.Mirror(p.Grad)
	if err != nil {
		o.be.Free(pt)
		return adamTensors{}, err
	}
	t.p, t.g, t.data, t.grad = pt, gt, &p.Data[0], &p.Grad[0]
	return *t, nil
}

// moments makes param i's moment tensors on a device, zeroed, when they
// are not there yet.
func (o *AdamW) moments(i int) error {
	t, n := &o.mirror[i], len(o.params[i].Data)
	if !o.device || t.m.Len() == n && t.v.Len() == n {
		return nil
	}
	m, err := o.be.Alloc(n)
	if err != nil {
		return err
	}
	v, err := o.be.Alloc(n)
	if err != nil {
		o.be.Free(m)
		return err
	}
	t.m, t.v = m, v
	return nil
}

// updateModel runs param i's element update on the model's own device
// tensors: nothing crosses to the host.
func (o *AdamW) updateModel(i int, s backend.AdamWStep) error {
	if err := o.moments(i); err != nil {
		return err
	}
	p, t := o.params[i], o.mirror[i]
	w, err := o.model.WeightTensor(p)
	if err != nil {
		return err
	}
	g, err := o.model.GradTensor(p)
	if err != nil {
		return err
	}
	return o.be.AdamW(w, g, t.m, t.v, s)
}

// gradNorm is the L2 norm of all gradients: accumulated in float64 on
// the host, or on a device with a model from each gradient's sum of
// squares there (deviceSquares).
func (o *AdamW) gradNorm() (float64, error) {
	if o.model != nil {
		return o.deviceSquares()
	}
	ss := 0.0
	for _, p := range o.params {
		for _, g := range p.Grad {
			ss += float64(g) * float64(g)
		}
	}
	return math.Sqrt(ss), nil
}

// deviceSquares computes each gradient's sum of squares on the device, as
// the product of g [1, n] and gᵀ (float32, summed as the backend's GEMM
// sums), brings the len(params) sums back in one download and returns
// the square root of their float64 sum.
func (o *AdamW) deviceSquares() (float64, error) {
	if o.sq.Len() != len(o.params) {
		sq, err := o.be.Alloc(len(o.params))
		if err != nil {
			return 0, err
		}
		o.sq = sq
	}
	for i, p := range o.params {
		g, err := o.model.GradTensor(p)
		if err != nil {
			return 0, err
		}
		if g.Len() == 0 {
			continue // its sum stays the 0 of Alloc
		}
		if err := o.be.MatMul(false, true, 1, 1, g.Len(), g, g, 0, o.sq.Slice(i, i+1)); err != nil {
			return 0, err
		}
	}
	sums := make([]float32, len(o.params))
	if err := o.be.Download(sums, o.sq); err != nil {
		return 0, err
	}
	ss := 0.0
	for _, s := range sums {
		ss += float64(s)
	}
	return math.Sqrt(ss), nil
}

// AdamWState is everything AdamW carries between steps: the step count and
// the moments by parameter name. Restoring it with SetState onto the same
// weights makes every later step bit-identical.
// Checkpoints store it as checkpoint.OptimizerState.
type AdamWState = checkpoint.OptimizerState

// State returns a deep copy of the optimizer state (downloaded from a
// device, where the moments live). The error is the backend's, when a
// download fails; a host backend never fails.
func (o *AdamW) State() (AdamWState, error) {
	s := AdamWState{Step: o.step, M: make(map[string][]float32, len(o.params)), V: make(map[string][]float32, len(o.params))}
	for i, p := range o.params {
		if !o.device {
			s.M[p.Name] = append([]float32(nil), o.m[i]...)
			s.V[p.Name] = append([]float32(nil), o.v[i]...)
			continue
		}
		m, v := make([]float32, len(p.Data)), make([]float32, len(p.Data))
		if t := o.mirror[i]; t.m.Len() == len(m) {
			if err := errors.Join(o.be.Download(m, t.m), o.be.Download(v, t.v)); err != nil {
				return AdamWState{}, fmt.Errorf("trainer: adamw state of %s: %w", p.Name, err)
			}
		}
		s.M[p.Name], s.V[p.Name] = m, v
	}
	return s, nil
}

// SetState copies s into the optimizer (uploads it to a device). It
// returns an error, and changes nothing, when s does not hold exactly the
// optimizer's parameters with moments of the right lengths, or when its
// step count is negative; on a device, the backend's error when an upload
// fails (the moments are then undefined).
func (o *AdamW) SetState(s AdamWState) error {
	if s.Step < 0 {
		return fmt.Errorf("trainer: adamw state: negative step %d", s.Step)
	}
	if len(s.M) != len(o.params) || len(s.V) != len(o.params) {
		return fmt.Errorf("trainer: adamw state: has %d/%d moment tensors, optimizer has %d params", len(s.M), len(s.V), len(o.params))
	}
	for _, p := range o.params {
		m, okM := s.M[p.Name]
		v, okV := s.V[p.Name]
		if !okM || !okV {
			return fmt.Errorf("trainer: adamw state: no moments for param %q", p.Name)
		}
		if len(m) != len(p.Data) || len(v) != len(p.Data) {
			return fmt.Errorf("trainer: adamw state: param %q has %d/%d moments for %d weights", p.Name, len(m), len(v), len(p.Data))
		}
	}
	for i, p := range o.params {
		if !o.device {
			copy(o.m[i], s.M[p.Name])
			copy(o.v[i], s.V[p.Name])
			continue
		}
		if err := o.moments(i); err != nil {
			return fmt.Errorf("trainer: adamw state of %s: %w", p.Name, err)
		}
		t := o.mirror[i]
		if err := errors.Join(o.be.Upload(t.m, s.M[p.Name]), o.be.Upload(t.v, s.V[p.Name])); err != nil {
			return fmt.Errorf("trainer: adamw state of %s: %w", p.Name, err)
		}
	}
	o.step = s.Step
	return nil
}

// ConstantLR is peak after a linear warmup: peak·(step+1)/warmup for the
// 0-based steps before warmup, so the first step is never at rate 0.
func ConstantLR(step, warmup int, peak float64) float64 {
	if step < warmup {
		return peak * float64(step+1) / float64(warmup)
	}
	return peak
}

// CosineLR is a linear warmup to peak (as ConstantLR) followed by a cosine
// decay to peak·minRatio at step total:
//
//	lr = peak·(minRatio + (1−minRatio)·(1 + cos(π·p))/2),  p = (step−warmup)/(total−warmup)
//
// with p clamped to [0, 1], so steps from total on stay at peak·minRatio.
// Steps are 0-based.
func CosineLR(step, warmup, total int, peak, minRatio float64) float64 {
	if step < warmup {
		return ConstantLR(step, warmup, peak)
	}
	p := 1.0
	if total > warmup {
		p = min(float64(step-warmup)/float64(total-warmup), 1)
	}
	return peak * (minRatio + (1-minRatio)*(1+math.Cos(math.Pi*p))/2)
}
