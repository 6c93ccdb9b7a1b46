package policy

// Causal grouped-query attention for the training graph. The B sequences
// of a batch are laid out as blocks of T rows: q [N, H·D], k and v
// [N, K·D], N = B·T. Query head h reads key/value head h/(H/K).

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// attnOp computes o [N, H·D] = softmax(q·kᵀ/sqrt(D) + causal mask)·v per
// sequence and head.
func attnOp(g geometry, T int) *kernel {
	HD, KD := g.H*g.D, g.K*g.D
	return &kernel{
		name: fmt.Sprintf("attn(%d,%d,%d,%d)", g.H, g.K, g.D, T), inDims: []int{2, 2, 2}, outDims: 2, shape: same,
		fwd: func(out []float32, in [][]float32, s []tensor.Shape) {
			q, k, v := in[0], in[1], in[2]
			B := s[0][0] / T
			parallelFor(B*g.H, T*T*g.D*2, func(lo, hi int) {
				p := make([]float32, causalBlock*T)
				for u := lo; u < hi; u++ {
					b, h := u/g.H, u%g.H
					qb, ob := q[b*T*HD:(b+1)*T*HD], out[b*T*HD:(b+1)*T*HD]
					kb, vb := k[b*T*KD:(b+1)*T*KD], v[b*T*KD:(b+1)*T*KD]
					attendBlock(g, ob, qb, kb, vb, T, h, p)
				}
			})
		},
		diff: []bool{true, true, true},
		grad: func(in G.Nodes, out, dy *G.Node) (G.Nodes, error) {
			N := in[0].Shape()[0]
			back, err := apply(attnBackOp(g, T), in[0], in[1], in[2], out, dy)
			if err != nil {
				return nil, err
			}
			return grads(
				sliceOp(0, N, HD), nodes(back),
				sliceOp(N*HD, N, KD), nodes(back),
				sliceOp(N*(HD+KD), N, KD), nodes(back))
		},
	}
}

// attnBackOp takes q, k, v, the forward output o and its gradient do, and
// returns dq [N, H·D], dk [N, K·D] and dv [N, K·D] laid end to end in one
// flat tensor. Per sequence and head, with P the attention probabilities:
// dV += Pᵀ·dO, dS = P ⊙ (dO·Vᵀ − rowdot(dO, O)) / √D, dQ = dS·K,
// dK += dSᵀ·Q.
func attnBackOp(g geometry, T int) *kernel {
	HD, KD := g.H*g.D, g.K*g.D
	return &kernel{
		name: fmt.Sprintf("attnBack(%d,%d,%d,%d)", g.H, g.K, g.D, T), inDims: []int{2, 2, 2, 2, 2}, outDims: 1,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][0] * (HD + 2*KD)} },
		fwd: func(out []float32, in [][]float32, s []tensor.Shape) {
			N := s[0][0]
			dq, dk, dv := out[:N*HD], out[N*HD:N*(HD+KD)], out[N*(HD+KD):]
			clear(out[N*HD:])
			B := N / T
			parallelFor(B*g.K, T*T*g.D*8*(g.H/g.K), func(lo, hi int) {
				p, ds := make([]float32, causalBlock*T), make([]float32, causalBlock*T)
				for u := lo; u < hi; u++ {
					b, kv := u/g.K, u%g.K
					qs, ks := b*T*HD, b*T*KD
					attnBackGroup(g, kv, T, attnTensors{
						q: in[0][qs : qs+T*HD], k: in[1][ks : ks+T*KD], v: in[2][ks : ks+T*KD],
						o: in[3][qs : qs+T*HD], do: in[4][qs : qs+T*HD],
						dq: dq[qs : qs+T*HD], dk: dk[ks : ks+T*KD], dv: dv[ks : ks+T*KD],
					}, p, ds)
				}
			})
		},
	}
}

// attnTensors are one sequence's slices of the attention backward pass.
type attnTensors struct {
	q, k, v, o, do []float32 // [T, H·D], [T, K·D], [T, K·D], [T, H·D], [T, H·D]
	dq, dk, dv     []float32 // [T, H·D], [T, K·D], [T, K·D]; dk, dv zeroed by the caller
}

// attnBackGroup runs the backward pass of key/value head kv and its query
// heads over one sequence of T rows, a block of query rows r0..r1 at a
// time as attendBlock works: it recomputes the block's probabilities P,
// then dS = P ⊙ (dO·Vᵀ − rowdot(dO, O)) / √D on columns < r1, dQ = dS·K
// for the block's rows and dK, dV += dSᵀ·Q, Pᵀ·dO for rows < r1. p and ds
// are scratch of causalBlock·T values.
func attnBackGroup(g geometry, kv, T int, a attnTensors, p, ds []float32) {
	HD, KD, D := g.H*g.D, g.K*g.D, g.D
	kk, vv := a.k[kv*D:], a.v[kv*D:]
	for h := kv * (g.H / g.K); h < (kv+1)*(g.H/g.K); h++ {
		q, o, do := a.q[h*D:], a.o[h*D:], a.do[h*D:]
		for r0 := 0; r0 < T; r0 += causalBlock {
			r1, n := min(r0+causalBlock, T), min(causalBlock, T-r0)
			blockProbs(g, p, q, kk, T, r0, r1)
			sgemm(false, true, n, r1, D, 1, do[r0*HD:], HD, vv, KD, 0, ds, T) // dP = dO·Vᵀ
			for t := r0; t < r1; t++ {
				var delta float32
				for d, x := range do[t*HD : t*HD+D] {
					delta += x * o[t*HD+d]
				}
				pr, dr := p[(t-r0)*T:(t-r0)*T+t+1], ds[(t-r0)*T:(t-r0)*T+r1]
				for j, pj := range pr {
					dr[j] = pj * (dr[j] - delta) * g.scale
				}
				clear(dr[t+1:])
			}
			sgemm(false, false, n, D, r1, 1, ds, T, kk, KD, 0, a.dq[r0*HD+h*D:], HD)  // dQ = dS·K
			sgemm(true, false, r1, D, n, 1, ds, T, q[r0*HD:], HD, 1, a.dk[kv*D:], KD) // dK += dSᵀ·Q
			sgemm(true, false, r1, D, n, 1, p, T, do[r0*HD:], HD, 1, a.dv[kv*D:], KD) // dV += Pᵀ·dO
		}
	}
}

// sliceOp copies rows·cols values from offset off of a flat tensor into a
// [rows, cols] tensor.
func sliceOp(off, rows, cols int) *kernel {
	return &kernel{
		name: fmt.Sprintf("slice(%d,%d,%d)", off, rows, cols), inDims: []int{1}, outDims: 2,
		shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{rows, cols} },
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) {
			copy(out, in[0][off:off+rows*cols])
		},
	}
}
