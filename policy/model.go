package policy

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/artist-rl/artist/policy/backend"
)

// Config sizes a model. Field names and JSON keys follow HuggingFace's
// Qwen2 config.json, so the file of a real checkpoint decodes into it.
type Config struct {
	VocabSize             int     `json:"vocab_size" yaml:"vocab_size"`
	HiddenSize            int     `json:"hidden_size" yaml:"hidden_size"`             // C
	IntermediateSize      int     `json:"intermediate_size" yaml:"intermediate_size"` // F
	NumHiddenLayers       int     `json:"num_hidden_layers" yaml:"num_hidden_layers"`
	NumAttentionHeads     int     `json:"num_attention_heads" yaml:"num_attention_heads"` // H
	NumKeyValueHeads      int     `json:"num_key_value_heads" yaml:"num_key_value_heads"` // K; H must be a multiple of K
	MaxPositionEmbeddings int     `json:"max_position_embeddings" yaml:"max_position_embeddings"`
	RopeTheta             float64 `json:"rope_theta" yaml:"rope_theta"`
	RMSNormEps            float64 `json:"rms_norm_eps" yaml:"rms_norm_eps"`
	TieWordEmbeddings     bool    `json:"tie_word_embeddings" yaml:"tie_word_embeddings"`
}

// HeadDim is D = C/H.
func (c Config) HeadDim() int { return c.HiddenSize / c.NumAttentionHeads }

// Validate reports the first field that cannot build a model.
func (c Config) Validate() error {
	if err := positive(field{"vocab_size", float64(c.VocabSize)}, field{"hidden_size", float64(c.HiddenSize)},
		field{"intermediate_size", float64(c.IntermediateSize)}, field{"num_hidden_layers", float64(c.NumHiddenLayers)}); err != nil {
		return err
	}
	switch {
	case c.NumAttentionHeads <= 0 || c.HiddenSize%c.NumAttentionHeads != 0:
		return fmt.Errorf("policy: num_attention_heads (%d) must be positive and divide hidden_size (%d)", c.NumAttentionHeads, c.HiddenSize)
	case c.HeadDim()%2 != 0:
		return fmt.Errorf("policy: head dim hidden_size/num_attention_heads = %d must be even for rotary positions", c.HeadDim())
	case c.NumKeyValueHeads <= 0 || c.NumAttentionHeads%c.NumKeyValueHeads != 0:
		return fmt.Errorf("policy: num_key_value_heads (%d) must be positive and divide num_attention_heads (%d)", c.NumKeyValueHeads, c.NumAttentionHeads)
	}
	return positive(field{"max_position_embeddings", float64(c.MaxPositionEmbeddings)}, field{"rope_theta", c.RopeTheta},
		field{"rms_norm_eps", c.RMSNormEps})
}

// field is a config value and its JSON key, for positive.
type field struct {
	key string
	v   float64
}

// positive names the first of fs that is not positive.
func positive(fs ...field) error {
	for _, f := range fs {
		if f.v <= 0 {
			return fmt.Errorf("policy: %s must be positive", f.key)
		}
	}
	return nil
}

// Param is one weight tensor, stored row-major. Grad is nil until the
// model first computes gradients (Backward, or EnableGrads), so models used
// only for inference (sampling, eval, serve, the KL reference) hold no
// gradient memory; from then on it has the same length as Data and
// accumulates gradients until ZeroGrad. A parameter frozen in bfloat16
// (Model.Freeze16) has Data and Grad nil; its weights are read through
// the forward passes only.
type Param struct {
	Name  string // HuggingFace name, e.g. "model.layers.0.self_attn.q_proj.weight"
	Shape []int  // HuggingFace layout: linear weights are [out, in]
	Data  []float32
	Grad  []float32
	half  []uint16 // the bfloat16 weights when frozen (Frozen16), else nil
}

// Layer holds the weights of one decoder block. Linear weights are [out, in]
// as in HuggingFace: y = x·Wᵀ + b.
type Layer struct {
	AttnNorm *Param // [C]
	Q, K, V  *Param // [H·D, C], [K·D, C], [K·D, C]
	QB, KB   *Param // [H·D], [K·D]
	VB       *Param // [K·D]
	O        *Param // [C, H·D]
	MLPNorm  *Param // [C]
	Gate, Up *Param // [F, C]
	Down     *Param // [C, F]
}

// Model is the decoder. Its weights live in Params (in a fixed order); the
// named fields point into the same Param values.
type Model struct {
	Config Config
	Embed  *Param // [V, C] model.embed_tokens.weight
	Layers []Layer
	Norm   *Param // [C] model.norm.weight
	Head   *Param // [V, C] lm_head.weight; == Embed when tied
	Params []*Param

	be     backend.Backend // computes both paths; DefaultBackend's unless UseBackend changed it
	w      *weightSet      // the weights as be holds them (weights.go)
	graphs *graphCache     // compiled training graphs, built on demand by Backward
	gs     graphSettings   // how the training graphs are built and kept
	invT   float32         // 1/temperature of LogProbs and Backward; 0 means 1 (SetTemperature)
	lora   *LoRA           // attached adapters (AttachLoRA); nil: the full weights train
}

// New builds a model with weights drawn from the given source: linear and
// embedding weights from N(0, 0.02²), biases zero, norm weights one. It
// computes with DefaultBackend, whose error it returns.
func New(cfg Config, rng *rand.Rand) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	be, err := defaultBackend()
	if err != nil {
		return nil, err
	}
	m := newShell(cfg, be)
	for _, p := range m.Params {
		switch {
		case len(p.Shape) == 1 && isNorm(p.Name):
			for i := range p.Data {
				p.Data[i] = 1
			}
		case len(p.Shape) == 1: // bias
		default:
			for i := range p.Data {
				p.Data[i] = float32(rng.NormFloat64() * 0.02)
			}
		}
	}
	return m, nil
}

// newShell allocates zeroed parameters with HuggingFace names, computed
// by be.
func newShell(cfg Config, be backend.Backend) *Model { return newShellAlloc(cfg, be, true) }

// newShellAlloc is newShell; with alloc false the parameters have their
// names and shapes but no Data.
func newShellAlloc(cfg Config, be backend.Backend, alloc bool) *Model {
	C, F, V, D := cfg.HiddenSize, cfg.IntermediateSize, cfg.VocabSize, cfg.HeadDim()
	H, K := cfg.NumAttentionHeads, cfg.NumKeyValueHeads
	m := &Model{Config: cfg, be: be, w: newWeightSet(be), gs: defaultGraphSettings()}
	add := func(name string, shape ...int) *Param {
		n := 1
		for _, s := range shape {
			n *= s
		}
		p := &Param{Name: name, Shape: shape}
		if alloc {
			p.Data = make([]float32, n)
		}
		m.Params = append(m.Params, p)
		return p
	}
	m.Embed = add("model.embed_tokens.weight", V, C)
	for i := 0; i < cfg.NumHiddenLayers; i++ {
		pre := fmt.Sprintf("model.layers.%d.", i)
		m.Layers = append(m.Layers, Layer{
			AttnNorm: add(pre+"input_layernorm.weight", C),
			Q:        add(pre+"self_attn.q_proj.weight", H*D, C),
			QB:       add(pre+"self_attn.q_proj.bias", H*D),
			K:        add(pre+"self_attn.k_proj.weight", K*D, C),
			KB:       add(pre+"self_attn.k_proj.bias", K*D),
			V:        add(pre+"self_attn.v_proj.weight", K*D, C),
			VB:       add(pre+"self_attn.v_proj.bias", K*D),
			O:        add(pre+"self_attn.o_proj.weight", C, H*D),
			MLPNorm:  add(pre+"post_attention_layernorm.weight", C),
			Gate:     add(pre+"mlp.gate_proj.weight", F, C),
			Up:       add(pre+"mlp.up_proj.weight", F, C),
			Down:     add(pre+"mlp.down_proj.weight", C, F),
		})
	}
	m.Norm = add("model.norm.weight", C)
	if cfg.TieWordEmbeddings {
		m.Head = m.Embed
	} else {
		m.Head = add("lm_head.weight", V, C)
	}
	return m
}

func isNorm(name string) bool {
	n := len(name)
	return n >= len("norm.weight") && name[n-len("norm.weight"):] == "norm.weight"
}

// Param returns the parameter with the given HuggingFace name, or nil.
func (m *Model) Param(name string) *Param {
	for _, p := range m.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// ZeroGrad clears every gradient: Param.Grad, and on a device backend
// the device gradients Backward adds into (GradTensor). The error is the
// backend's.
func (m *Model) ZeroGrad() error {
	for _, p := range m.TrainParams() {
		clear(p.Grad)
	}
	if m.onDevice() {
		return m.w.zeroGrads()
	}
	return nil
}

// EnableGrads allocates the gradient buffers (zeroed) of every trainable
// parameter (TrainParams) that has none yet: Param.Grad on a host
// backend, the device tensors of GradTensor on a device (Param.Grad is
// then left alone). Backward calls it; an optimizer calls it before it
// reads the gradients. The error is the backend's (out of memory). It
// panics with ErrFrozen16 when a trainable parameter is frozen in
// bfloat16 (a frozen model without adapters).
func (m *Model) EnableGrads() error {
	if m.trainsFrozen() {
		m.refuseFrozen16("policy: EnableGrads")
	}
	for _, p := range m.TrainParams() {
		if m.onDevice() {
			if _, err := m.w.grad(p); err != nil {
				return err
			}
		} else if len(p.Grad) != len(p.Data) {
			p.Grad = make([]float32, len(p.Data))
		}
	}
	return nil
}

// NumParams counts scalar weights (a tied head is counted once).
func (m *Model) NumParams() int {
	n := 0
	for _, p := range m.Params {
		n += p.Len()
	}
	return n
}

// Clone returns a deep copy of the weights (without gradient buffers) on
// the same backend, used for the frozen reference policy; weights frozen
// in bfloat16 stay so in the copy. Weights an optimizer updated on a
// device are brought to the host first (HostWeights); it panics when
// the device fails to return them (Merged returns that error instead).
func (m *Model) Clone() *Model {
	c, err := m.clone()
	if err != nil {
		panic(err)
	}
	return c
}

// clone is Clone, returning HostWeights' error.
func (m *Model) clone() (*Model, error) {
	if err := m.HostWeights(); err != nil {
		return nil, err
	}
	c := newShell(m.Config, m.be)
	for i, p := range m.Params {
		if p.half != nil {
			c.Params[i].half, c.Params[i].Data = append([]uint16(nil), p.half...), nil
			continue
		}
		copy(c.Params[i].Data, p.Data)
	}
	return c, nil
}

// ropeTables returns cos and sin for positions [0, T) as [T, D/2] tables:
// angle(t, j) = t · theta^(-2j/D), the rotate-half convention of Qwen2.
func ropeTables(T, D int, theta float64) (cos, sin []float32) {
	half := D / 2
	cos = make([]float32, T*half)
	sin = make([]float32, T*half)
	for t := 0; t < T; t++ {
		for j := 0; j < half; j++ {
			inv := math.Pow(theta, -float64(2*j)/float64(D))
			a := float64(t) * inv
			cos[t*half+j] = float32(math.Cos(a))
			sin[t*half+j] = float32(math.Sin(a))
		}
	}
	return cos, sin
}
