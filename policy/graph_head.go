package policy

// The fused LM head of the training graph: the head's product, the
// log-softmax over the vocabulary and the pick of each row's target,
// forward and backward, a chunk of rows at a time, so that the [N, V]
// logits (and their gradient) never exist whole. The backward pass
// recomputes each chunk's logits from x and W, as fused linear
// cross-entropy does (Liger, verl). Shape legend as in graph.go; R rows
// per chunk.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// head is the graph's log-probs [N] of targets [N] from the final hidden
// states x [N, C] through the LM head w [V, C]. Above gs.headFuseAbove
// logit values it is one fused op (headLogProbOp); at or below it, the
// head's linear node and a log-prob node over the whole logits, as
// before the fused op existed (same bits).
func (b *builder) head(x *G.Node, w *Param, targets *G.Node, N int) *G.Node {
	if b.err != nil {
		return nil
	}
	V := b.g.V
	if N*V <= b.gs.headFuseAbove {
		logits := b.linear(x, w, nil)                                    // [N, V]
		return b.op(tokenLogProbOp(b.be, V, b.invTemp), logits, targets) // [N]
	}
	var direct *Param // the head's weight gradient, written by the op
	if b.lora == nil {
		direct = w
		b.direct[w] = true
	}
	rows := max(1, b.gs.headChunkValues/V)
	sc := &headScratch{logits: make([]float32, rows*V), dlogits: make([]float32, rows*V)}
	b.scratchBytes += int64(2*rows*V) * 4
	return b.op(headLogProbOp(b.be, b.g, b.invTemp, rows, sc, direct), x, b.pn[w], targets)
}

// hostOnly returns the host storage of ts, or an error naming the op
// when one is a device tensor: the fused head gathers rows on the host.
func hostOnly(op string, ts ...backend.Tensor) ([][]float32, error) {
	out := make([][]float32, len(ts))
	for i, t := range ts {
		if !t.OnHost() {
			return nil, fmt.Errorf("policy: %s runs on host backends only (it computes on host values)", op)
		}
		out[i] = t.Host()
	}
	return out, nil
}

// headScratch is the chunk buffers the fused head's forward and backward
// kernels share: one chunk's logits and their gradient, [R, V] each.
type headScratch struct {
	logits, dlogits []float32
}

// headLogProbOp takes x [N, C], w [V, C] and targets [N] and gives
// out[r] = log softmax(x[r]·wᵀ·inv)[targets[r]] (0 for a negative target),
// computed rows chunk rows at a time. It saves each row's log-sum-exp.
// Its gradient is dx alone as far as the graph knows: the backward kernel
// adds ∂cost/∂w into direct.Grad itself (nil: w is frozen), which keeps a
// [V, C] gradient node out of the graph.
func headLogProbOp(be backend.Backend, g geometry, inv float32, rows int, sc *headScratch, direct *Param) *kernel {
	V, C := g.V, g.C
	k := &kernel{
		name: fmt.Sprintf("headLogProb(%d,%d,%d,%g,%t)", V, C, rows, inv, direct != nil), inDims: []int{2, 2, 1}, outDims: 1,
		shape: func(in []tensor.Shape) tensor.Shape { return tensor.Shape{in[0][0]} },
		diff:  []bool{true, false, false},
		save:  func(in []tensor.Shape) int { return in[0][0] },
	}
	k.fwd = func(outT backend.Tensor, in []backend.Tensor, s []tensor.Shape) error {
		h, err := hostOnly(k.name, outT, in[0], in[1], in[2])
		if err != nil {
			return err
		}
		out, x, w, tg := h[0], h[1], h[2], h[3]
		N := s[0][0]
		for lo := 0; lo < N; lo += rows {
			c := min(rows, N-lo)
			lg := sc.logits[:c*V]
			if err := be.MatMul(false, true, c, V, C, host(x[lo*C:(lo+c)*C]), host(w), 0, host(lg)); err != nil {
				return err
			}
			scaleLogits(lg, inv)
			var sv backend.Tensor
			if k.saved != nil {
				sv = host(k.saved[lo : lo+c])
			}
			if err := be.TokenLogProb(host(out[lo:lo+c]), sv, host(lg), host(tg[lo:lo+c]), V); err != nil {
				return err
			}
		}
		return nil
	}
	k.grad = func(in G.Nodes, out, dy *G.Node) (G.Nodes, error) {
		dx, err := apply(headBackOp(be, k, g, inv, rows, sc, direct), in[0], in[1], in[2], out, dy)
		return G.Nodes{dx, nil, nil}, err
	}
	return k
}

// headBackOp takes x, w, targets, the forward output and dy [N] and gives
// dx [N, C], adding dw to direct.Grad when direct is set. Only the rows
// with a target and a nonzero dy enter, gathered into chunks of rows:
// for each, the logits are recomputed, dlogits = dy·(onehot − softmax)·inv,
// dx = dlogits·w and dw += dlogitsᵀ·x.
func headBackOp(be backend.Backend, fwd *kernel, g geometry, inv float32, rows int, sc *headScratch, direct *Param) *kernel {
	V, C := g.V, g.C
	xb, dxb := make([]float32, rows*C), make([]float32, rows*C)
	tb, lb, db := make([]float32, rows), make([]float32, rows), make([]float32, rows)
	return &kernel{
		name: fmt.Sprintf("headBack(%d,%d,%d,%g,%t)", V, C, rows, inv, direct != nil), inDims: []int{2, 2, 1, 1, 1}, outDims: 2,
		shape: func(in []tensor.Shape) tensor.Shape { return in[0].Clone() },
		fwd: func(outT backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			h, err := hostOnly("headBack", outT, in[0], in[1], in[2], in[4])
			if err != nil {
				return err
			}
			out, x, w, tg, dy := h[0], h[1], h[2], h[3], h[4]
			clear(out)
			var live []int // rows that carry a gradient
			for r, t := range tg {
				if t >= 0 && dy[r] != 0 {
					live = append(live, r)
				}
			}
			for lo := 0; lo < len(live); lo += rows {
				idx := live[lo:min(lo+rows, len(live))]
				c := len(idx)
				for j, r := range idx {
					copy(xb[j*C:(j+1)*C], x[r*C:(r+1)*C])
					tb[j], db[j] = tg[r], dy[r]
					if fwd.saved != nil {
						lb[j] = fwd.saved[r]
					}
				}
				var sv backend.Tensor
				if fwd.saved != nil {
					sv = host(lb[:c])
				}
				lg, dl := sc.logits[:c*V], sc.dlogits[:c*V]
				if err := be.MatMul(false, true, c, V, C, host(xb[:c*C]), host(w), 0, host(lg)); err != nil {
					return err
				}
				scaleLogits(lg, inv)
				if err := be.TokenLogProbBack(host(dl), host(lg), host(tb[:c]), sv, host(db[:c]), V); err != nil {
					return err
				}
				scaleLogits(dl, inv)
				if err := be.MatMul(false, false, c, C, V, host(dl), host(w), 0, host(dxb[:c*C])); err != nil {
					return err
				}
				for j, r := range idx {
					copy(out[r*C:(r+1)*C], dxb[j*C:(j+1)*C])
				}
				if direct != nil {
					if err := be.MatMul(true, false, V, C, c, host(dl), host(xb[:c*C]), 1, host(direct.Grad)); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
}
