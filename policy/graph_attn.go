package policy

// Causal grouped-query attention for the training graph. The B sequences
// of a batch are laid out as blocks of T rows: q [N, H·D], k and v
// [N, K·D], N = B·T. Query head h reads key/value head h/(H/K).

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// attnOp computes o [N, H·D] = softmax(q·kᵀ/sqrt(D) + causal mask)·v per
// sequence and head (backend.Kernels.Attention). It keeps the attention
// probabilities for its backward pass when they are at most maxSaved
// values (N·H·T; the default bound is 32 MB), else recomputes them.
func attnOp(be backend.Backend, g geometry, T, maxSaved int) *kernel {
	HD, KD := g.H*g.D, g.K*g.D
	k := &kernel{
		name: fmt.Sprintf("attn(%d,%d,%d,%d)", g.H, g.K, g.D, T), inDims: []int{2, 2, 2}, outDims: 2, shape: same,
		diff: []bool{true, true, true},
		save: func(in []tensor.Shape) int {
			if n := in[0][0] * g.H * T; n <= maxSaved {
				return n
			}
			return 0
		},
	}
	k.fwd = func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
		return be.Attention(out, k.savedT, in[0], in[1], in[2], g.heads(), T)
	}
	k.grad = func(in G.Nodes, out, dy *G.Node) (G.Nodes, error) {
		N := in[0].Shape()[0]
		back, err := apply(attnBackOp(be, k, g, T), in[0], in[1], in[2], out, dy)
		if err != nil {
			return nil, err
		}
		return grads(
			sliceOp(be, 0, N, HD), nodes(back),
			sliceOp(be, N*HD, N, KD), nodes(back),
			sliceOp(be, N*(HD+KD), N, KD), nodes(back))
	}
	return k
}

// attnBackOp takes q, k, v, the forward output o and its gradient do, and
// returns dq [N, H·D], dk [N, K·D] and dv [N, K·D] laid end to end in one
// flat tensor (backend.Kernels.AttentionBack), reading what fwd saved.
func attnBackOp(be backend.Backend, fwd *kernel, g geometry, T int) *kernel {
	HD, KD := g.H*g.D, g.K*g.D
	return &kernel{
		name: fmt.Sprintf("attnBack(%d,%d,%d,%d)", g.H, g.K, g.D, T), inDims: []int{2, 2, 2, 2, 2}, outDims: 1,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][0] * (HD + 2*KD)} },
		fwd: func(out backend.Tensor, in []backend.Tensor, s []tensor.Shape) error {
			N := s[0][0]
			flat := out
			return be.AttentionBack(flat.Slice(0, N*HD), flat.Slice(N*HD, N*(HD+KD)), flat.Slice(N*(HD+KD), N*(HD+2*KD)),
				in[0], in[1], in[2], in[3], fwd.savedT, in[4], g.heads(), T)
		},
	}
}

// sliceOp copies rows·cols values from offset off of a flat tensor into a
// [rows, cols] tensor.
func sliceOp(be backend.Backend, off, rows, cols int) *kernel {
	return &kernel{
		name: fmt.Sprintf("slice(%d,%d,%d)", off, rows, cols), inDims: []int{1}, outDims: 2,
		shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{rows, cols} },
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return be.Copy(out, in[0].Slice(off, off+rows*cols))
		},
	}
}
