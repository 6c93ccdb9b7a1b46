package policy

// The training graph's operations, forward and backward, each computed by
// one kernel of the model's backend. Every backward kernel overwrites its
// whole output (outputs are reused between runs). Shapes as in the
// package's legend (doc.go).

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// embedOp looks up rows of E [V, C] by ids [N] (token ids stored as
// float32, exact below 2²⁴): out [N, C].
func embedOp(be backend.Backend, V, C int) *kernel {
	return &kernel{
		name: fmt.Sprintf("embed(%d,%d)", V, C), inDims: []int{2, 1}, outDims: 2,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[1][0], C} },
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return be.Embed(out, in[0], in[1], C)
		},
		diff: []bool{true, false},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(embedGradOp(be, V, C), nodes(in[1], dy), nil, nil)
		},
	}
}

// embedGradOp scatters dy [N, C] into dE [V, C] by ids [N].
func embedGradOp(be backend.Backend, V, C int) *kernel {
	return &kernel{
		name: fmt.Sprintf("embedGrad(%d,%d)", V, C), inDims: []int{1, 2}, outDims: 2,
		shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{V, C} },
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return be.EmbedBack(out, in[0], in[1], C)
		},
	}
}

// rmsNormOp is y = x / sqrt(mean(x²) + eps) ⊙ w over rows of x [N, C], w [C].
func rmsNormOp(be backend.Backend, C int, eps float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("rmsNorm(%d,%g)", C, eps), inDims: []int{2, 1}, outDims: 2, shape: same,
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return be.RMSNorm(out, in[0], in[1], C, eps)
		},
		diff: []bool{true, true},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(rmsNormDXOp(be, C, eps), nodes(in[0], in[1], dy), rmsNormDWOp(be, C, eps), nodes(in[0], in[1], dy))
		},
	}
}

// frozenRMSNormOp is rmsNormOp over a frozen w: its gradient is dx alone.
func frozenRMSNormOp(be backend.Backend, C int, eps float32) *kernel {
	k := rmsNormOp(be, C, eps)
	k.name = fmt.Sprintf("frozenRMSNorm(%d,%g)", C, eps)
	k.diff = []bool{true, false}
	k.grad = func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
		return grads(rmsNormDXOp(be, C, eps), nodes(in[0], in[1], dy), nil, nil)
	}
	return k
}

// rmsNormDXOp takes x, w and dy and gives dx (backend.Kernels.RMSNormBack).
func rmsNormDXOp(be backend.Backend, C int, eps float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("rmsNormDX(%d,%g)", C, eps), inDims: []int{2, 1, 2}, outDims: 2, shape: same,
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return be.RMSNormBack(out, backend.Tensor{}, in[0], in[1], in[2], C, eps)
		},
	}
}

// rmsNormDWOp takes x, w and dy and gives dw (backend.Kernels.RMSNormBack).
func rmsNormDWOp(be backend.Backend, C int, eps float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("rmsNormDW(%d,%g)", C, eps), inDims: []int{2, 1, 2}, outDims: 1,
		shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{C} },
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return be.RMSNormBack(backend.Tensor{}, out, in[0], in[1], in[2], C, eps)
		},
	}
}

// linearOp is y [N, out] = x [N, in]·Wᵀ (+ b [out] when bias), W [out, in].
func linearOp(be backend.Backend, bias bool) *kernel {
	dims := []int{2, 2}
	if bias {
		dims = append(dims, 1)
	}
	return &kernel{
		name: fmt.Sprintf("linear(%t)", bias), inDims: dims, outDims: 2,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][0], in[1][0]} },
		fwd: func(out backend.Tensor, in []backend.Tensor, s []tensor.Shape) error {
			var b backend.Tensor
			if bias {
				b = in[2]
			}
			return linear(be, out, in[0], s[0][0], s[0][1], in[1], b, s[1][0])
		},
		diff: dims2bools(len(dims)),
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			// dx = dy·W, dW = dyᵀ·x, db = Σ_rows dy
			pairs := []any{matmulOp(be, false, false), nodes(dy, in[1]), matmulOp(be, true, false), nodes(dy, in[0])}
			if bias {
				pairs = append(pairs, colSumOp(be), nodes(dy))
			}
			return grads(pairs...)
		},
	}
}

// frozenLinearOp is linearOp over a frozen W (and b): its gradient is
// dx = dy·W alone.
func frozenLinearOp(be backend.Backend, bias bool) *kernel {
	k := linearOp(be, bias)
	k.name = fmt.Sprintf("frozenLinear(%t)", bias)
	k.diff = make([]bool, len(k.inDims))
	k.diff[0] = true
	k.grad = func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
		pairs := []any{matmulOp(be, false, false), nodes(dy, in[1]), nil, nil}
		if bias {
			pairs = append(pairs, nil, nil)
		}
		return grads(pairs...)
	}
	return k
}

func dims2bools(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

// matmulOp is op(a)·op(b) where op transposes when ta/tb is set.
func matmulOp(be backend.Backend, ta, tb bool) *kernel {
	dim := func(s tensor.Shape, t bool) (r, c int) {
		if t {
			return s[1], s[0]
		}
		return s[0], s[1]
	}
	return &kernel{
		name: fmt.Sprintf("matmul(%t,%t)", ta, tb), inDims: []int{2, 2}, outDims: 2,
		shape: func(in []tensor.Shape) tensor.Shape {
			m, _ := dim(in[0], ta)
			_, n := dim(in[1], tb)
			return tensor.Shape{m, n}
		},
		fwd: func(out backend.Tensor, in []backend.Tensor, s []tensor.Shape) error {
			m, k := dim(s[0], ta)
			_, n := dim(s[1], tb)
			return be.MatMul(ta, tb, m, n, k, in[0], in[1], 0, out)
		},
	}
}

// colSumOp sums the rows of x [N, M]: out [M].
func colSumOp(be backend.Backend) *kernel {
	return &kernel{
		name: "colSum", inDims: []int{2}, outDims: 1,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][1]} },
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return be.ColSum(out, in[0])
		},
	}
}

// tokenLogProbOp picks log softmax(logits[r]·inv)[targets[r]] for logits
// [N, V] and targets [N] (ids as float32; a negative target gives 0); inv
// is 1/temperature. With inv ≠ 1 the forward pass scales the logits in
// place (no other op reads them) and the backward pass scales their
// gradient by inv.
func tokenLogProbOp(be backend.Backend, V int, inv float32) *kernel {
	k := &kernel{
		name: fmt.Sprintf("tokenLogProb(%d)", V), inDims: []int{2, 1}, outDims: 1,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][0]} },
		diff:  []bool{true, false},
		save:  func(in []tensor.Shape) int { return in[0][0] },
	}
	k.fwd = func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
		if err := scale(be, in[0], inv); err != nil {
			return err
		}
		return be.TokenLogProb(out, k.savedT, in[0], in[1], V)
	}
	k.grad = func(in G.Nodes, out, dy *G.Node) (G.Nodes, error) {
		return grads(tokenLogProbBackOp(be, k, V, inv), nodes(in[0], in[1], out, dy), nil, nil)
	}
	return k
}

// tokenLogProbBackOp takes logits, targets, the forward output and dy and
// gives dlogits[r] = dy[r]·(onehot(target) − softmax(logits[r])), reading
// what fwd saved.
func tokenLogProbBackOp(be backend.Backend, fwd *kernel, V int, inv float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("tokenLogProbBack(%d)", V), inDims: []int{2, 1, 1, 1}, outDims: 2, shape: same,
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			if err := be.TokenLogProbBack(out, in[0], in[1], fwd.savedT, in[3], V); err != nil {
				return err
			}
			return scale(be, out, inv)
		},
	}
}
