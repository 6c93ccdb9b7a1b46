package policy

// The training graph's LoRA pieces: the projections of a layer with their
// adapters, and the frozen variants of the base's operations. Shape
// legend as in graph.go; r is the adapters' rank.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
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
		in = b.op(dropoutOp(b.be, b.lora, p, l, t), x) // [N, in]
	}
	u := b.op(linearOp(b.be, false), in, b.pn[a.A])                   // [N, r]
	return b.op(loraOutOp(b.be, b.lora.scale, l, t), y, u, b.pn[a.B]) // [N, out]
}

// loraOutOp is out [N, out] = y + s·u·Bᵀ for y [N, out], u [N, r] and
// B [out, r]: one planned buffer, where an addition node would hold an
// unplanned one per target. Its gradients are dy (passed on as it is),
// du = s·dy·B and dB = s·dyᵀ·u.
func loraOutOp(be backend.Backend, s float32, layer int, t loraTarget) *kernel {
	k := &kernel{
		name: fmt.Sprintf("loraOut(%g,%d,%d)", s, layer, t), inDims: []int{2, 2, 2}, outDims: 2, shape: same,
		diff: []bool{true, true, true},
	}
	var us backend.Tensor // s·u, the forward pass's scratch
	k.fwd = func(out backend.Tensor, in []backend.Tensor, sh []tensor.Shape) error {
		N, r, o := sh[1][0], sh[1][1], sh[2][0]
		if us.Len() != N*r {
			var err error
			if us, err = k.gm.alloc(make([]float32, N*r)); err != nil {
				return err
			}
		}
		var e errs
		e.add(be.Copy(us, in[1]))
		e.add(be.Scale(us, s))
		e.add(be.Copy(out, in[0]))
		e.add(be.MatMul(false, true, N, o, r, us, in[2], 1, out))
		return e.err
	}
	k.grad = func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
		g, err := grads(scaledMatmulOp(be, false, false, s), nodes(dy, in[2]), scaledMatmulOp(be, true, false, s), nodes(dy, in[1]))
		if err != nil {
			return nil, err
		}
		return G.Nodes{dy, g[0], g[1]}, nil
	}
	return k
}

// scaledMatmulOp is s·op(a)·op(b) (matmulOp, then scaled in place).
func scaledMatmulOp(be backend.Backend, ta, tb bool, s float32) *kernel {
	k := matmulOp(be, ta, tb)
	k.name = fmt.Sprintf("scaledMatmul(%t,%t,%g)", ta, tb, s)
	fwd := k.fwd
	k.fwd = func(out backend.Tensor, in []backend.Tensor, sh []tensor.Shape) error {
		if err := fwd(out, in, sh); err != nil {
			return err
		}
		return be.Scale(out, s)
	}
	return k
}

// dropoutOp is inverted dropout of an adapter's input: each value is zeroed
// with probability p, the rest scaled by 1/(1−p). The mask is drawn on the
// host from the adapters' dropout source on every run (in the graph's
// fixed order), uploaded, and applied with the backend's Mul, forward and
// backward; the op keeps it itself, whether or not the graph saves
// values. The name holds the layer and target, so the dropouts of q, k
// and v, which share their input, stay distinct nodes.
func dropoutOp(be backend.Backend, l *LoRA, p float64, layer int, t loraTarget) *kernel {
	keep := float32(1 / (1 - p))
	k := &kernel{
		name: fmt.Sprintf("loraDropout(%g,%d,%d)", p, layer, t), inDims: []int{2}, outDims: 2, shape: same,
		diff: []bool{true},
	}
	var mask []float32       // the last run's mask
	var maskT backend.Tensor // mask as the backend holds it
	k.fwd = func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
		if len(mask) != in[0].Len() {
			mask = make([]float32, in[0].Len())
			var err error
			if maskT, err = k.gm.alloc(mask); err != nil {
				return err
			}
		}
		for i := range mask {
			m := float32(0)
			if l.drop.Float64() >= p {
				m = keep
			}
			mask[i] = m
		}
		if err := be.Upload(maskT, mask); err != nil {
			return err
		}
		return be.Mul(out, maskT, in[0])
	}
	k.grad = func(_ G.Nodes, _, dy *G.Node) (G.Nodes, error) {
		return grads(&kernel{
			name: fmt.Sprintf("loraDropoutBack(%g,%d,%d)", p, layer, t), inDims: []int{2}, outDims: 2, shape: same,
			fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
				return be.Mul(out, maskT, in[0])
			},
		}, nodes(dy))
	}
	return k
}
