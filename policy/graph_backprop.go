package policy

// The training graph's backward pass, built by the graph itself rather
// than by gorgonia's Grad, so that every value of it is one of our
// kernels': gorgonia sums the gradients that reach a node from several
// readers with its own additions, whose values live on the host only.
// backprop walks the nodes as gorgonia's Backpropagate does (the same
// sort, the same analysis, the gradients of a node summed in the order
// they arrive, left to right as its ReduceAdd sums them) and sums with
// addOp, so the gradients are the same bits.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// addOp is x + y for two values of one shape (Copy, then Add: the bits
// of x[i] + y[i]); its gradient passes dy on to both.
func addOp(be backend.Backend, dims int) *kernel {
	return &kernel{
		name: fmt.Sprintf("add(%d)", dims), inDims: []int{dims, dims}, outDims: dims, shape: same,
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			if err := be.Copy(out, in[0]); err != nil {
				return err
			}
			return be.Add(out, in[1])
		},
		diff: []bool{true, true},
		grad: func(_ G.Nodes, _, dy *G.Node) (G.Nodes, error) { return G.Nodes{dy, dy}, nil },
	}
}

// backprop returns ∂cost/∂w for each w of wrt, as Grad would. children
// holds the inputs of every node the builder made, in order.
func (b *builder) backprop(eg *G.ExprGraph, cost *G.Node, wrt []*G.Node) ([]*G.Node, error) {
	seed := eg.AddNode(G.NewConstant(float32(1))) // Grad's gradient of the cost, added before the sort as Grad adds it
	sorted, err := G.Sort(eg)
	if err != nil {
		return nil, fmt.Errorf("policy: backward pass: %w", err)
	}
	diffs := func(n *G.Node) []bool {
		if op, ok := n.Op().(G.SDOp); ok {
			return op.DiffWRT(len(b.children[n]))
		}
		return nil
	}
	// Nodes the cost depends on, through differentiable inputs.
	affects := map[*G.Node]bool{cost: true}
	for _, n := range sorted {
		if affects[n] && n.Op() != nil {
			for j, c := range b.children[n] {
				if diffs(n)[j] {
					affects[c] = true
				}
			}
		}
	}
	// Nodes that depend on a wrt node, through differentiable inputs.
	affected := map[*G.Node]bool{}
	for _, w := range wrt {
		affected[w] = true
	}
	for i := len(sorted) - 1; i >= 0; i-- {
		n := sorted[i]
		d := diffs(n)
		for j, c := range b.children[n] {
			if j < len(d) && d[j] && affected[c] {
				affected[n] = true
				break
			}
		}
	}
	grads := map[*G.Node][]*G.Node{cost: {seed}}
	for _, n := range sorted {
		if !affects[n] || !affected[n] {
			continue
		}
		gs := grads[n]
		if len(gs) == 0 {
			return nil, fmt.Errorf("policy: backward pass: no gradient reaches %v", n)
		}
		sum := gs[0]
		for _, g := range gs[1:] {
			if sum, err = apply(addOp(b.be, g.Dims()), sum, g); err != nil {
				return nil, err
			}
		}
		grads[n] = []*G.Node{sum}
		if n.Op() == nil {
			continue // an input
		}
		op, ok := n.Op().(G.SDOp)
		if !ok {
			return nil, fmt.Errorf("policy: backward pass: %v is not differentiable", n)
		}
		cg, err := op.SymDiff(b.children[n], n, sum)
		if err != nil {
			return nil, fmt.Errorf("policy: backward pass: %v: %w", n, err)
		}
		for j, c := range b.children[n] {
			if diffs(n)[j] {
				grads[c] = append(grads[c], cg[j])
			}
		}
	}
	out := make([]*G.Node, len(wrt))
	for i, w := range wrt {
		if len(grads[w]) == 0 {
			return nil, fmt.Errorf("policy: backward pass: the cost does not depend on %v", w)
		}
		out[i] = grads[w][0]
	}
	return out, nil
}
