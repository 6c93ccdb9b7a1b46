package policy

// Low-rank adapters (LoRA, Hu et al. 2021) on the linear layers of the
// decoder, as PEFT builds them: a target W [out, in] computes
//
//	y = x·Wᵀ + b + s·(drop(x)·Aᵀ)·Bᵀ,   A [r, in], B [out, r], s = alpha/r,
//
// with A drawn as PEFT's kaiming-uniform (U(−1/√in, 1/√in)) and B zero, so
// the adapted model starts equal to the base. Dropout acts on the adapter's
// input in the training graph only. With adapters attached only A and B
// train: the base weights get no gradient buffers and no graph gradient.

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
)

// loraTarget indexes the seven linear layers an adapter can attach to.
type loraTarget int

const (
	targetQ loraTarget = iota
	targetK
	targetV
	targetO
	targetGate
	targetUp
	targetDown
	numTargets
)

// loraModules are the targets' short names (the config's) and their
// HuggingFace module paths inside a layer, in loraTarget order.
var loraModules = [numTargets]struct{ short, module string }{
	{"q", "self_attn.q_proj"}, {"k", "self_attn.k_proj"}, {"v", "self_attn.v_proj"},
	{"o", "self_attn.o_proj"}, {"gate", "mlp.gate_proj"}, {"up", "mlp.up_proj"},
	{"down", "mlp.down_proj"},
}

// LoRAConfig is model.lora of a run config.
type LoRAConfig struct {
	// Rank r of every adapter; 0 (default) trains the full weights.
	Rank int `yaml:"rank"`
	// Alpha scales the adapters' output by alpha/rank. Default 32.
	Alpha float64 `yaml:"alpha"`
	// Dropout is the probability of zeroing an adapter input while
	// training (never while sampling). Default 0; in [0, 1).
	Dropout float64 `yaml:"dropout"`
	// Targets are the linear layers that get adapters: q, k, v, o, gate,
	// up, down (Qwen2's q_proj, k_proj, v_proj, o_proj, gate_proj,
	// up_proj, down_proj; either spelling). Default all seven.
	Targets []string `yaml:"targets"`
	// BaseDType is how the frozen base holds its decoder-layer linear
	// weights while the adapters train: "f32" (default; "" reads as f32)
	// or "bf16", rounded to nearest-even bfloat16 and widened to float32
	// one matrix at a time for each product, forward and backward
	// (Model.FreezeBase16). It halves those weights' memory; the
	// adapters, the embedding, the head and the norms stay float32.
	BaseDType string `yaml:"base_dtype"`
}

// LoRABaseDTypes are the values LoRAConfig.BaseDType takes ("" is f32).
var LoRABaseDTypes = []string{"f32", "bf16"}

// Base16 reports whether the adapters are asked for on a base frozen in
// bfloat16 (Enabled and BaseDType bf16).
func (c LoRAConfig) Base16() bool { return c.Enabled() && c.BaseDType == "bf16" }

// DefaultLoRAConfig returns the documented defaults (off).
func DefaultLoRAConfig() LoRAConfig {
	t := make([]string, numTargets)
	for i, m := range loraModules {
		t[i] = m.short
	}
	return LoRAConfig{Alpha: 32, Targets: t, BaseDType: "f32"}
}

// Enabled reports whether adapters are asked for (Rank > 0).
func (c LoRAConfig) Enabled() bool { return c.Rank > 0 }

// Scale is alpha/rank, the factor of the adapters' output.
func (c LoRAConfig) Scale() float32 { return float32(c.Alpha / float64(c.Rank)) }

// Validate names the first bad key of model.lora. A zero rank is valid
// (adapters off) whatever the other keys hold, base_dtype's value
// excepted (the trainer refuses bf16 without adapters).
func (c LoRAConfig) Validate() error {
	switch {
	case c.BaseDType != "" && !slices.Contains(LoRABaseDTypes, c.BaseDType):
		return fmt.Errorf("policy: model.lora.base_dtype %q is unknown: use f32 or bf16 (bf16 holds the frozen base's layer weights in bfloat16)", c.BaseDType)
	case c.Rank < 0:
		return fmt.Errorf("policy: model.lora.rank = %d must be ≥ 0 (0 trains the full weights; 8 to 64 are usual)", c.Rank)
	case c.Rank == 0:
		return nil
	case !(c.Alpha > 0) || math.IsInf(c.Alpha, 1):
		return fmt.Errorf("policy: model.lora.alpha = %g must be a finite value > 0 (the adapters' output is scaled by alpha/rank; often 2·rank)", c.Alpha)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("policy: model.lora.dropout = %g must be in [0, 1)", c.Dropout)
	case len(c.Targets) == 0:
		return errors.New("policy: model.lora.targets is empty: list some of q, k, v, o, gate, up, down")
	}
	seen := map[loraTarget]bool{}
	for i, name := range c.Targets {
		t, ok := targetOf(name)
		if !ok {
			return fmt.Errorf("policy: model.lora.targets[%d] = %q is not a target: use q, k, v, o, gate, up or down (or q_proj, ..., down_proj)", i, name)
		}
		if seen[t] {
			return fmt.Errorf("policy: model.lora.targets[%d] = %q is listed twice", i, name)
		}
		seen[t] = true
	}
	return nil
}

// targetOf reads a target's short name or its Qwen2 module name.
func targetOf(name string) (loraTarget, bool) {
	for i, m := range loraModules {
		if name == m.short || name == m.short+"_proj" {
			return loraTarget(i), true
		}
	}
	return 0, false
}

// Adapter is one target's pair of matrices. Their Param names are PEFT's:
// base_model.model.model.layers.N.self_attn.q_proj.lora_A.weight [r, in]
// and ...lora_B.weight [out, r].
type Adapter struct {
	Layer  int
	Target string // short name: q, k, v, o, gate, up or down
	A, B   *Param
	t      loraTarget
}

// LoRA is the set of adapters attached to a model.
type LoRA struct {
	Config   LoRAConfig
	Adapters []*Adapter // by layer, then target in q, k, v, o, gate, up, down order
	scale    float32
	at       [][numTargets]*Adapter // [layer][target], nil where none
	drop     *rand.Rand             // dropout masks of the training graph
}

// Params returns A and B of every adapter, in Adapters order.
func (l *LoRA) Params() []*Param {
	ps := make([]*Param, 0, 2*len(l.Adapters))
	for _, a := range l.Adapters {
		ps = append(ps, a.A, a.B)
	}
	return ps
}

// SeedDropout restarts the source of the training graph's dropout masks,
// so a run can derive them from (seed, step) and resume exactly.
func (l *LoRA) SeedDropout(seed int64) { l.drop = rand.New(rand.NewSource(seed)) }

// peftName is the PEFT tensor name of a layer's target matrix (which is
// "A" or "B").
func peftName(layer int, t loraTarget, which string) string {
	return fmt.Sprintf("base_model.model.model.layers.%d.%s.lora_%s.weight", layer, loraModules[t].module, which)
}

// targetDims is the (out, in) of a target's weight.
func (m *Model) targetDims(t loraTarget) (out, in int) { return geometryOf(m.Config).targetDims(t) }

// newLoRA allocates zeroed adapters of cfg (valid, enabled) for m.
func (m *Model) newLoRA(cfg LoRAConfig) *LoRA {
	l := &LoRA{Config: cfg, scale: cfg.Scale(), at: make([][numTargets]*Adapter, len(m.Layers))}
	l.Config.Targets = slices.Clone(cfg.Targets)
	want := [numTargets]bool{}
	for _, name := range cfg.Targets {
		t, _ := targetOf(name)
		want[t] = true
	}
	r := cfg.Rank
	for layer := range m.Layers {
		for t := range numTargets {
			if !want[t] {
				continue
			}
			out, in := m.targetDims(t)
			a := &Adapter{Layer: layer, Target: loraModules[t].short, t: t,
				A: &Param{Name: peftName(layer, t, "A"), Shape: []int{r, in}, Data: make([]float32, r*in)},
				B: &Param{Name: peftName(layer, t, "B"), Shape: []int{out, r}, Data: make([]float32, out*r)},
			}
			l.Adapters = append(l.Adapters, a)
			l.at[layer][t] = a
		}
	}
	l.SeedDropout(0)
	return l
}

// AttachLoRA gives m fresh adapters: every A drawn from rng as PEFT's
// kaiming_uniform_(a=√5) draws it, U(−1/√in, 1/√in), in Adapters order,
// row-major; every B zero; the dropout source seeded from rng. From then
// on sampling, LogProbs and Backward compute the adapted model, and
// Backward gives gradients to the adapters only. It replaces adapters
// attached before and fails on an invalid or disabled cfg.
func (m *Model) AttachLoRA(cfg LoRAConfig, rng *rand.Rand) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if !cfg.Enabled() {
		return errors.New("policy: AttachLoRA: model.lora.rank is 0")
	}
	l := m.newLoRA(cfg)
	for _, a := range l.Adapters {
		bound := 1 / math.Sqrt(float64(a.A.Shape[1]))
		for i := range a.A.Data {
			a.A.Data[i] = float32((2*rng.Float64() - 1) * bound)
		}
	}
	l.SeedDropout(rng.Int63())
	m.setLoRA(l)
	return nil
}

// setLoRA installs l (nil detaches) and drops the compiled graphs, which
// were built for the other parameter set. The base weights' gradient
// buffers go: with adapters they never receive a gradient.
func (m *Model) setLoRA(l *LoRA) {
	m.dropGraphs()
	m.lora = l
	if l != nil {
		for _, p := range m.Params {
			p.Grad = nil
		}
	}
}

// LoRA returns the attached adapters, or nil.
func (m *Model) LoRA() *LoRA { return m.lora }

// TrainParams are the parameters Backward gives gradients to and an
// optimizer steps: the adapters' when attached, else every weight.
func (m *Model) TrainParams() []*Param {
	if m.lora != nil {
		return m.lora.Params()
	}
	return m.Params
}

// Base returns the model without its adapters: the same weight slices
// (no copy), its own temperature and graphs. It is the frozen reference
// of a LoRA run, which therefore costs no memory of its own.
func (m *Model) Base() *Model {
	b := *m
	b.lora, b.graphs = nil, nil
	return &b
}

// Merged returns a copy of m whose weights are W + s·B·A for every
// adapter (an inference model: no gradient buffers, no adapters), or a
// plain copy when none are attached. The copy is float32 throughout: a
// base frozen in bfloat16 (FreezeBase16) is widened back exactly and the
// adapters merged into that, so m's numbers are what the copy computes
// up to the merge's rounding. It returns the backend's error when a
// product fails.
func (m *Model) Merged() (*Model, error) {
	c, err := m.widened()
	if err != nil {
		return nil, err
	}
	c.lora = m.lora
	if err := c.MergeAdapters(); err != nil {
		return nil, err
	}
	return c, nil
}

// MergeAdapters folds the attached adapters into m's own weights,
// W ← W + s·B·A, and detaches them; nothing without adapters. When a
// product fails it returns the backend's error, and the weights merged so
// far stay merged (the adapters stay attached). A base frozen in
// bfloat16 is refused with ErrFrozen16: W cannot take the sum in place
// (Merged widens a copy instead).
func (m *Model) MergeAdapters() error {
	l := m.lora
	if l == nil {
		return nil
	}
	if m.Frozen16() {
		return fmt.Errorf("policy: MergeAdapters: %w", ErrFrozen16)
	}
	if err := m.HostWeights(); err != nil {
		return fmt.Errorf("policy: MergeAdapters: %w", err)
	}
	for _, a := range l.Adapters {
		if err := m.merge(a); err != nil {
			return fmt.Errorf("policy: merge adapter %s: %w", a.A.Name, err)
		}
	}
	m.dropGraphs()
	m.lora = nil
	return nil
}

// merge does W += s·B·A for adapter a on the backend's weights and brings
// the result back into W's Param.Data (on a host backend they are the
// same values, and nothing is copied).
func (m *Model) merge(a *Adapter) error {
	out, in := m.targetDims(a.t)
	p := m.targetWeight(a.Layer, a.t)
	sb := make([]float32, len(a.B.Data)) // s·B [out, r]
	for i, v := range a.B.Data {
		sb[i] = m.lora.scale * v
	}
	w, err := m.weight(p)
	if err != nil {
		return err
	}
	A, err := m.weight(a.A)
	if err != nil {
		return err
	}
	sbt, err := m.be.Mirror(sb)
	if err != nil {
		return err
	}
	defer m.be.Free(sbt)
	if err := m.be.MatMul(false, false, out, in, m.lora.Config.Rank, sbt, A, 1, w); err != nil {
		return err
	}
	return m.be.Download(p.Data, w)
}

// targetWeight is the base weight [out, in] of a layer's target.
func (m *Model) targetWeight(layer int, t loraTarget) *Param {
	L := m.Layers[layer]
	return [numTargets]*Param{L.Q, L.K, L.V, L.O, L.Gate, L.Up, L.Down}[t]
}
