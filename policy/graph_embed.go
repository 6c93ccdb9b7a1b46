package policy

// The training graph's embedding, and the anchor that makes the graph run
// every backward kernel whose gradients are added into Param.Grad
// directly rather than held as graph nodes. Shapes as in the package's
// legend (doc.go).

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// add does y += x.
func add(y, x []float32) {
	for i, v := range x {
		y[i] += v
	}
}

// embed is the graph's embedding of ids [N]: x [N, C], and the anchor
// input the graph must ask the gradient of (nil when none). With
// adapters (whose gradients the blocks add themselves, so that no
// gradient node may be left to ask for), or with the fused head on full
// weights, x passes through anchorOp; with the fused head on full weights the embedding's
// gradient is added into Param.Grad by the anchor's gradient kernel, not
// held as a [V, C] node.
func (b *builder) embed(eg *G.ExprGraph, m *Model, ids *G.Node, N int) (x, anchor *G.Node) {
	b.directEmbed = m.lora == nil && N*b.g.V > b.gs.headFuseAbove
	k := embedOp(b.be, b.g.V, b.g.C)
	if b.directEmbed {
		k.diff, k.grad = []bool{false, false}, nil
		b.direct[m.Embed] = true
	}
	x = b.op(k, b.pn[m.Embed], ids) // [N, C]
	if m.lora == nil && !b.directEmbed {
		return x, nil
	}
	av := tensor.New(tensor.WithShape(1), tensor.Of(tensor.Float32))
	if _, err := b.gm.alloc(av.Data().([]float32)); err != nil {
		b.err = fmt.Errorf("policy: graph anchor: %w", err)
		return nil, nil
	}
	anchor = G.NewVector(eg, tensor.Float32, G.WithShape(1), G.WithName("anchor"), G.WithValue(av))
	var into *Param
	if b.directEmbed {
		into = m.Embed
	}
	return b.op(anchorOp(b.be, b.g.C, into), x, anchor, ids), anchor
}

// anchorOp passes x [N, C] on unchanged beside an input a [1] of the
// graph whose gradient (0) is computed from x's, and ids [N]: the blocks'
// backward kernels then all run when the graph asks for a's gradient.
// When embed is set, the gradient kernel also adds the embedding's
// gradient (dx scattered by ids) into the model's gradient of embed.
func anchorOp(be backend.Backend, C int, embed *Param) *kernel {
	return &kernel{
		name: fmt.Sprintf("anchor(%t)", embed != nil), inDims: []int{2, 1, 1}, outDims: 2, shape: same,
		fwd:  func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error { return be.Copy(out, in[0]) },
		diff: []bool{true, true, false},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			ag := &anchorGrad{be: be, C: C, embed: embed, sc: &embedScatter{C: C}}
			ag.k = &kernel{
				name: fmt.Sprintf("anchorGrad(%t)", embed != nil), inDims: []int{2, 1}, outDims: 1,
				shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{1} },
				fwd:   ag.run,
			}
			da, err := apply(ag.k, dy, in[2])
			return G.Nodes{dy, da, nil}, err
		},
	}
}

// anchorGrad is the state of one anchor's gradient kernel k.
type anchorGrad struct {
	be    backend.Backend
	k     *kernel
	C     int
	embed *Param
	sc    *embedScatter // on a host backend
}

// run is the kernel's function: in are dx [N, C] and ids [N]; out, the
// anchor's gradient, is 0. On a host backend the embedding's gradient is
// added by embedScatter, with no [V, C] buffer; on a device, EmbedBack
// scatters dx into the model's [V, C] table (weightSet.table) and
// Add adds it to the device gradient, the
// same sums, with nothing coming back to the host.
func (ag *anchorGrad) run(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
	be, gm := ag.be, ag.k.gm
	if err := be.Zero(out); err != nil || ag.embed == nil {
		return err
	}
	if gm.host {
		ag.sc.add(ag.embed.Grad, in[1].Host(), in[0].Host())
		return nil
	}
	table, err := gm.w.table(len(ag.embed.Data))
	if err != nil {
		return err
	}
	if err := be.EmbedBack(table, in[1], in[0], ag.C); err != nil {
		return err
	}
	return gm.addGrad(ag.embed, table)
}

// embedScatter adds the embedding's gradient into a table's gradient
// without a [V, C] buffer: the rows of dy are summed per id (in row
// order, from zero) into one compact row per distinct id, and each sum
// is then added to its row of the gradient, the same bits as
// backend.Kernels.EmbedBack followed by an addition.
type embedScatter struct {
	C    int
	slot map[int]int
	sums []float32
}

func (e *embedScatter) add(grad, ids, dy []float32) {
	C := e.C
	if e.slot == nil {
		e.slot = make(map[int]int, len(ids))
	}
	clear(e.slot)
	order := make([]int, 0, len(ids))
	for _, x := range ids {
		if _, ok := e.slot[int(x)]; !ok {
			e.slot[int(x)] = len(order)
			order = append(order, int(x))
		}
	}
	if len(e.sums) < len(order)*C {
		e.sums = make([]float32, len(ids)*C)
	}
	sums := e.sums[:len(order)*C]
	clear(sums)
	for r, x := range ids {
		s := e.slot[int(x)]
		add(sums[s*C:(s+1)*C], dy[r*C:(r+1)*C])
	}
	for s, id := range order {
		add(grad[id*C:(id+1)*C], sums[s*C:(s+1)*C])
	}
}
