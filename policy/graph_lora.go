package policy

// The training graph's LoRA pieces: the projections of a layer with their
// adapters, and the frozen variants of the base's operations. Shape
// legend as in graph.go; r is the adapters' rank.

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// linear is x·Wᵀ (+ bias) over a base weight, frozen when adapters train.
func (b *builder) linear(x *G.Node, w, bias *Param) *G.Node {
	in := []*G.Node{x, b.pn[w]}
	if bias != nil {
		in = append(in, b.pn[bias])
	}
	k := linearOp(b.be, bias != nil)
	if b.lora != nil {
		k = frozenLinearOp(b.be, bias != nil)
	}
	return b.op(k, in...)
}

// norm is RMSNorm with a base weight, frozen when adapters train.
func (b *builder) norm(x *G.Node, w *Param) *G.Node {
	k := rmsNormOp(b.be, b.g.C, b.g.eps)
	if b.lora != nil {
		k = frozenRMSNormOp(b.be, b.g.C, b.g.eps)
	}
	return b.op(k, x, b.pn[w])
}

// proj is layer l's projection t of x [N, in]: x·Wᵀ (+ bias), plus
// s·(drop(x)·Aᵀ)·Bᵀ when the target has an adapter.
func (b *builder) proj(x *G.Node, l int, t loraTarget, w, bias *Param) *G.Node {
	y := b.linear(x, w, bias) // [N, out]
	if b.lora == nil || b.lora.at[l][t] == nil {
		return y
	}
	a, in := b.lora.at[l][t], x
	if p := b.lora.Config.Dropout; p > 0 {
		in = b.op(dropoutOp(b.lora, p, l, t), x) // [N, in]
	}
	u := b.op(linearOp(b.be, false), in, b.pn[a.A])            // [N, r]
	u = b.op(scaleOp(b.lora.scale), u)                         // [N, r]
	return b.add(y, b.op(linearOp(b.be, false), u, b.pn[a.B])) // [N, out]
}

// scaleOp is y = s·x.
func scaleOp(s float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("scale(%g)", s), inDims: []int{2}, outDims: 2, shape: same,
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			for i, v := range in[0] {
				out[i] = s * v
			}
		},
		diff: []bool{true},
		grad: func(_ G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(scaleOp(s), nodes(dy))
		},
	}
}

// dropoutOp is inverted dropout of an adapter's input: each value is zeroed
// with probability p, the rest scaled by 1/(1−p), the mask drawn from the
// adapters' dropout source on every run (in the graph's fixed order) and
// kept for the backward pass. The name holds the layer and target, so the
// dropouts of q, k and v, which share their input, stay distinct nodes.
func dropoutOp(l *LoRA, p float64, layer int, t loraTarget) *kernel {
	keep := float32(1 / (1 - p))
	k := &kernel{
		name: fmt.Sprintf("loraDropout(%g,%d,%d)", p, layer, t), inDims: []int{2}, outDims: 2, shape: same,
		diff: []bool{true},
		save: func(in []tensor.Shape) int { return in[0].TotalSize() },
	}
	k.fwd = func(out []float32, in [][]float32, _ []tensor.Shape) {
		for i, v := range in[0] {
			m := float32(0)
			if l.drop.Float64() >= p {
				m = keep
			}
			k.saved[i] = m
			out[i] = m * v
		}
	}
	k.grad = func(_ G.Nodes, _, dy *G.Node) (G.Nodes, error) {
		return grads(&kernel{
			name: fmt.Sprintf("loraDropoutBack(%g,%d,%d)", p, layer, t), inDims: []int{2}, outDims: 2, shape: same,
			fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
				for i, v := range in[0] {
					out[i] = k.saved[i] * v
				}
			},
		}, nodes(dy))
	}
	return k
}
