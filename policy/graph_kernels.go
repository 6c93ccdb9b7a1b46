package policy

// Forward and backward kernels of the training graph's operations. Every
// backward kernel overwrites its whole output (outputs are reused between
// runs). Shape legend as in graph_ops.go: N rows, C channels, H/K query and
// key/value heads, D head dim, F MLP width, V vocab.

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// embedOp looks up rows of E [V, C] by ids [N] (token ids stored as
// float32, exact below 2²⁴): out [N, C].
func embedOp(V, C int) *kernel {
	return &kernel{
		name: fmt.Sprintf("embed(%d,%d)", V, C), inDims: []int{2, 1}, outDims: 2,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[1][0], C} },
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			E, ids := in[0], in[1]
			for r, id := range ids {
				t := int(id)
				copy(out[r*C:(r+1)*C], E[t*C:(t+1)*C])
			}
		},
		diff: []bool{true, false},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(embedGradOp(V, C), nodes(in[1], dy), nil, nil)
		},
	}
}

// embedGradOp scatters dy [N, C] into dE [V, C] by ids [N].
func embedGradOp(V, C int) *kernel {
	return &kernel{
		name: fmt.Sprintf("embedGrad(%d,%d)", V, C), inDims: []int{1, 2}, outDims: 2,
		shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{V, C} },
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			ids, dy := in[0], in[1]
			clear(out)
			for r, id := range ids {
				t := int(id)
				dst, src := out[t*C:(t+1)*C], dy[r*C:(r+1)*C]
				for j, v := range src {
					dst[j] += v
				}
			}
		},
	}
}

// rmsNormOp is y = x / sqrt(mean(x²) + eps) ⊙ w over rows of x [N, C], w [C].
func rmsNormOp(C int, eps float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("rmsNorm(%d,%g)", C, eps), inDims: []int{2, 1}, outDims: 2, shape: same,
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			rmsNorm(out, in[0], in[1], C, eps)
		},
		diff: []bool{true, true},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(rmsNormDXOp(C, eps), nodes(in[0], in[1], dy), rmsNormDWOp(C, eps), nodes(in[0], dy))
		},
	}
}

// rmsNormDXOp: with r = 1/sqrt(mean(x²)+eps),
// dx_i = r·w_i·dy_i − x_i·r³/C · Σ_j dy_j·w_j·x_j.
func rmsNormDXOp(C int, eps float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("rmsNormDX(%d,%g)", C, eps), inDims: []int{2, 1, 2}, outDims: 2, shape: same,
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			x, w, dy := in[0], in[1], in[2]
			for r := 0; r+C <= len(x); r += C {
				xr, dr, or := x[r:r+C], dy[r:r+C], out[r:r+C]
				inv := rmsInv(xr, eps)
				var s float32
				for j, v := range xr {
					s += dr[j] * w[j] * v
				}
				k := inv * inv * inv * s / float32(C)
				for j, v := range xr {
					or[j] = inv*w[j]*dr[j] - v*k
				}
			}
		},
	}
}

// rmsNormDWOp: dw_j = Σ_rows dy_j·x_j·r.
func rmsNormDWOp(C int, eps float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("rmsNormDW(%d,%g)", C, eps), inDims: []int{2, 2}, outDims: 1,
		shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{C} },
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			x, dy := in[0], in[1]
			clear(out)
			for r := 0; r+C <= len(x); r += C {
				xr, dr := x[r:r+C], dy[r:r+C]
				inv := rmsInv(xr, eps)
				for j, v := range xr {
					out[j] += dr[j] * v * inv
				}
			}
		},
	}
}

// linearOp is y [N, out] = x [N, in]·Wᵀ (+ b [out] when bias), W [out, in].
func linearOp(bias bool) *kernel {
	dims := []int{2, 2}
	if bias {
		dims = append(dims, 1)
	}
	return &kernel{
		name: fmt.Sprintf("linear(%t)", bias), inDims: dims, outDims: 2,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][0], in[1][0]} },
		fwd: func(out []float32, in [][]float32, s []tensor.Shape) {
			var b []float32
			if bias {
				b = in[2]
			}
			linear(out, in[0], s[0][0], s[0][1], in[1], b, s[1][0])
		},
		diff: dims2bools(len(dims)),
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			// dx = dy·W, dW = dyᵀ·x, db = Σ_rows dy
			pairs := []any{matmulOp(false, false), nodes(dy, in[1]), matmulOp(true, false), nodes(dy, in[0])}
			if bias {
				pairs = append(pairs, colSumOp(), nodes(dy))
			}
			return grads(pairs...)
		},
	}
}

func dims2bools(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

// matmulOp is op(a)·op(b) where op transposes when ta/tb is set.
func matmulOp(ta, tb bool) *kernel {
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
		fwd: func(out []float32, in [][]float32, s []tensor.Shape) {
			m, k := dim(s[0], ta)
			_, n := dim(s[1], tb)
			gemm(ta, tb, m, n, k, in[0], in[1], 0, out)
		},
	}
}

// colSumOp sums the rows of x [N, M]: out [M].
func colSumOp() *kernel {
	return &kernel{
		name: "colSum", inDims: []int{2}, outDims: 1,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][1]} },
		fwd: func(out []float32, in [][]float32, s []tensor.Shape) {
			M := s[0][1]
			clear(out)
			for r := 0; r < s[0][0]; r++ {
				for j, v := range in[0][r*M : (r+1)*M] {
					out[j] += v
				}
			}
		},
	}
}

// ropeOp rotates the nh heads of every row of x [N, nh·D]; row r holds
// position r mod T. Its gradient is the inverse rotation.
func ropeOp(nh, D, T int, inverse bool, cos, sin []float32) *kernel {
	return &kernel{
		name: fmt.Sprintf("rope(%d,%d,%d,%t)", nh, D, T, inverse), inDims: []int{2}, outDims: 2, shape: same,
		fwd: func(out []float32, in [][]float32, s []tensor.Shape) {
			copy(out, in[0])
			pos := make([]int, s[0][0])
			for r := range pos {
				pos[r] = r % T
			}
			rope(out, nh, D, pos, cos, sin, inverse)
		},
		diff: []bool{true},
		grad: func(_ G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(ropeOp(nh, D, T, !inverse, cos, sin), nodes(dy))
		},
	}
}

// swigluOp is y = silu(gate) ⊙ up over [N, F].
func swigluOp() *kernel {
	return &kernel{
		name: "swiglu", inDims: []int{2, 2}, outDims: 2, shape: same,
		fwd:  func(out []float32, in [][]float32, _ []tensor.Shape) { swiglu(out, in[0], in[1]) },
		diff: []bool{true, true},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(swigluDGOp(), nodes(in[0], in[1], dy), swigluDUOp(), nodes(in[0], dy))
		},
	}
}

// swigluDGOp: dgate = dy·up·σ(g)·(1 + g·(1−σ(g))).
func swigluDGOp() *kernel {
	return &kernel{
		name: "swigluDG", inDims: []int{2, 2, 2}, outDims: 2, shape: same,
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			gate, up, dy := in[0], in[1], in[2]
			for i, g := range gate {
				sg := 1 / (1 + exp32(-g))
				out[i] = dy[i] * up[i] * sg * (1 + g*(1-sg))
			}
		},
	}
}

// swigluDUOp: dup = dy·silu(gate).
func swigluDUOp() *kernel {
	return &kernel{
		name: "swigluDU", inDims: []int{2, 2}, outDims: 2, shape: same,
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			gate, dy := in[0], in[1]
			for i, g := range gate {
				out[i] = dy[i] * g / (1 + exp32(-g))
			}
		},
	}
}

// tokenLogProbOp picks log softmax(logits[r])[targets[r]] for logits
// [N, V] and targets [N] (ids as float32; a negative target gives 0).
func tokenLogProbOp(V int) *kernel {
	return &kernel{
		name: fmt.Sprintf("tokenLogProb(%d)", V), inDims: []int{2, 1}, outDims: 1,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][0]} },
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			logits, targets := in[0], in[1]
			parallelFor(len(targets), V*8, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					out[r] = 0
					if t := int(targets[r]); t >= 0 {
						row := logits[r*V : (r+1)*V]
						out[r] = float32(float64(row[t]) - logSumExp(row))
					}
				}
			})
		},
		diff: []bool{true, false},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(tokenLogProbBackOp(V), nodes(in[0], in[1], dy), nil, nil)
		},
	}
}

// tokenLogProbBackOp: dlogits[r] = dy[r]·(onehot(target) − softmax(logits[r])).
func tokenLogProbBackOp(V int) *kernel {
	return &kernel{
		name: fmt.Sprintf("tokenLogProbBack(%d)", V), inDims: []int{2, 1, 1}, outDims: 2, shape: same,
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			logits, targets, dy := in[0], in[1], in[2]
			parallelFor(len(targets), V*16, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					row, o := logits[r*V:(r+1)*V], out[r*V:(r+1)*V]
					t := int(targets[r])
					if t < 0 || dy[r] == 0 {
						clear(o)
						continue
					}
					lse := float32(logSumExp(row))
					for j, v := range row {
						o[j] = -dy[r] * exp32(v-lse)
					}
					o[t] += dy[r]
				}
			})
		},
	}
}
