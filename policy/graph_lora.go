package policy

// The training graph's operations over base weights that are frozen
// when adapters train (the decoder blocks' adapters are in block.go).
// Shapes as in the package's legend (doc.go).

import G "gorgonia.org/gorgonia"

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
