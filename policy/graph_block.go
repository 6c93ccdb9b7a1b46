package policy

// The decoder block in the training graph: one node per layer (blockOp),
// whose forward pass runs block.forward over the batch's rows and whose
// backward pass runs block.backward. By default each block keeps its
// forward values in buffers of its own for the backward pass. With
// activation recomputation (graphSettings.recompute) the forward pass
// keeps nothing but its output, the next block's input, and the backward
// pass runs the forward again into buffers every block shares before it
// back-propagates: the graph then holds one [N, C] value per layer
// instead of every intermediate of every layer, and the results are the
// same bits.
//
// The gradients of what trains in a block (its weights, or its adapters
// on a frozen base) are added into Param.Grad by the backward kernel
// itself: they are no graph nodes. Shapes as in the package's legend
// (doc.go).

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// batchMode runs a block over the N rows of a packed batch: sequences
// of lens[i] rows back to back (Σ lens = N), row r at position pos[r] of
// its sequence; products cover all rows at once, attention runs per
// sequence. Backward's load sets lens and pos for each run.
type batchMode struct {
	be       backend.Backend
	gm       *graphMemory
	pos      []int // [N]
	lens     []int // the sequences' rows, in order
	cos, sin backend.Tensor
	model    *Model // whose weights frozen in bfloat16 weight widens
}

// weight is p's tensor: the graph's (graphMemory.param), or for a weight
// frozen in bfloat16 its float32 values widened into the scratch the
// model's training graphs share (weightSet.train), valid until the next
// call, backward as forward.
func (m *batchMode) weight(p *Param) (backend.Tensor, error) {
	if p != nil && p.Frozen16() {
		return m.model.w.train.weight(m.model, p)
	}
	return m.gm.param(p)
}

func (m *batchMode) linear(y, x backend.Tensor, in int, w, bias backend.Tensor, out int) error {
	return linear(m.be, y, x, len(m.pos), in, w, bias, out)
}

// residual writes the projection into y, then adds x.
func (m *batchMode) residual(bk *block, t loraTarget, y, x, a backend.Tensor, w *Param, in int) error {
	if err := bk.proj(t, y, a, w, nil, in, bk.g.C); err != nil {
		return err
	}
	return m.be.Add(y, x)
}

// attend runs Attention over each sequence's rows, its saved
// probabilities (n·H·n values for n rows) back to back in v.probs.
func (m *batchMode) attend(bk *block) error {
	v, h := bk.v, bk.g.heads()
	return m.perSequence(h, v.probs, func(n int, rows func(backend.Tensor, int) backend.Tensor, probs backend.Tensor) error {
		return m.be.Attention(rows(v.a, h.H*h.D), probs, rows(v.q, h.H*h.D), rows(v.k, h.K*h.D), rows(v.v, h.K*h.D), h, n)
	})
}

// attendBack runs AttentionBack over each sequence's rows (attend).
func (m *batchMode) attendBack(bk *block) error {
	v, d, h := bk.v, bk.d, bk.g.heads()
	HD, KD := h.H*h.D, h.K*h.D
	return m.perSequence(h, v.probs, func(n int, rows func(backend.Tensor, int) backend.Tensor, probs backend.Tensor) error {
		return m.be.AttentionBack(rows(d.dq, HD), rows(d.dk, KD), rows(d.dv, KD), rows(v.q, HD), rows(v.k, KD), rows(v.v, KD),
			rows(v.a, HD), probs, rows(d.da, HD), h, n)
	})
}

// perSequence calls fn for each sequence of lens: its n rows, a function
// that cuts its rows out of a tensor of w values a row, and its part of
// saved (empty when saved is).
func (m *batchMode) perSequence(h backend.Heads, saved backend.Tensor, fn func(n int, rows func(t backend.Tensor, w int) backend.Tensor, probs backend.Tensor) error) error {
	r, sv := 0, 0
	for _, n := range m.lens {
		rows := func(t backend.Tensor, w int) backend.Tensor { return t.Slice(r*w, (r+n)*w) }
		var probs backend.Tensor
		if saved.Len() > 0 {
			probs = saved.Slice(sv, sv+n*h.H*n)
		}
		if err := fn(n, rows, probs); err != nil {
			return err
		}
		r, sv = r+n, sv+n*h.H*n
	}
	return nil
}

func (m *batchMode) rope() ([]int, backend.Tensor, backend.Tensor) { return m.pos, m.cos, m.sin }

// sized is a tensor to allocate and its length.
type sized struct {
	t *backend.Tensor
	n int
}

// allocBlocks gives every buffer the blocks asked for (b.blocks.bufs) its
// part of one arena the graph owns (graphMemory.arena).
func (b *builder) allocBlocks() error {
	if b.err != nil || b.blocks == nil {
		return b.err
	}
	total := 0
	for _, s := range b.blocks.bufs {
		total += s.n
	}
	mem, err := b.gm.arena(total)
	if err != nil {
		return fmt.Errorf("policy: block buffers: %w", err)
	}
	off := 0
	for _, s := range b.blocks.bufs {
		*s.t, off = mem.Slice(off, off+s.n), off+s.n
	}
	b.scratchBytes += int64(total) * 4
	return nil
}

// newBlockValues asks for the forward values of layer l's block (of
// every block for l < 0) for N rows: what Attention and SwiGLU save only
// when the graph saves (attention's probabilities only up to
// maxSavedProbs values), and for each target with an adapter its
// product, with dropout its dropped input and mask.
func (b *builder) newBlockValues(N, l int) *blockValues {
	g, v := b.g, &blockValues{}
	C, F, HD, KD := g.C, g.F, g.H*g.D, g.K*g.D
	ts := []sized{{&v.h1, N * C}, {&v.q, N * HD}, {&v.k, N * KD}, {&v.v, N * KD}, {&v.a, N * HD},
		{&v.x2, N * C}, {&v.h2, N * C}, {&v.gt, N * F}, {&v.up, N * F}, {&v.act, N * F}}
	if b.gs.save {
		ts = append(ts, sized{&v.swi, N * F})
		if n := N * g.H * b.T; n <= b.gs.maxSavedProbs {
			ts = append(ts, sized{&v.probs, n})
		}
	}
	for t := range v.u {
		if !b.adapted(loraTarget(t), l) {
			continue
		}
		ts = append(ts, sized{&v.u[t], N * b.lora.Config.Rank})
		if b.lora.Config.Dropout > 0 {
			_, in := g.targetDims(loraTarget(t))
			v.mask[t] = make([]float32, N*in)
			ts = append(ts, sized{&v.drop[t], N * in}, sized{&v.maskT[t], N * in})
		}
	}
	b.blocks.bufs = append(b.blocks.bufs, ts...)
	return v
}

// adapted reports whether target t has an adapter in layer l, or in
// any layer for l < 0.
func (b *builder) adapted(t loraTarget, l int) bool {
	if b.lora == nil {
		return false
	}
	for i, at := range b.lora.at {
		if (l < 0 || i == l) && at[t] != nil {
			return true
		}
	}
	return false
}

// newBlockGrads asks for the blocks' backward temporaries for N rows.
func (b *builder) newBlockGrads(N int) *blockGrads {
	g, d := b.g, &blockGrads{gm: b.gm}
	C, F, HD, KD := g.C, g.F, g.H*g.D, g.K*g.D
	ts := []sized{{&d.dact, N * F}, {&d.dgt, N * F}, {&d.dup, N * F}, {&d.dh2, N * C}, {&d.dn, N * C},
		{&d.dx2, N * C}, {&d.da, N * HD}, {&d.dq, N * HD}, {&d.dk, N * KD}, {&d.dv, N * KD}, {&d.dh1, N * C},
		{&d.small, max(C, HD)}, {&d.dw, max(F, HD) * C}, {&d.part, N * max(C, F, HD)}}
	if b.gs.recompute {
		ts = append(ts, sized{&d.tmp, N * C})
	}
	if b.lora != nil {
		ts = append(ts, sized{&d.du, N * b.lora.Config.Rank})
	}
	b.blocks.bufs = append(b.blocks.bufs, ts...)
	return d
}

// block adds decoder block l over x [N, C] as one node (blockOp).
func (b *builder) block(x *G.Node, l int, L Layer) *G.Node {
	if b.err != nil {
		return nil
	}
	N := x.Shape()[0]
	if b.lora != nil && b.lora.Config.Dropout > 0 && b.gs.recompute {
		b.err = fmt.Errorf("policy: activation recomputation takes adapters without dropout (lora dropout is %g): set it to 0 or turn recomputation off", b.lora.Config.Dropout)
		return nil
	}
	if b.blocks == nil {
		pos, lens := make([]int, N), make([]int, 0, (N+b.T-1)/b.T)
		for r := range pos {
			pos[r] = r % b.T
		}
		for r := 0; r < N; r += b.T {
			lens = append(lens, min(b.T, N-r))
		}
		b.blocks = &blockShared{mode: &batchMode{be: b.be, gm: b.gm, pos: pos, lens: lens, cos: b.cosT, sin: b.sinT, model: b.model}}
		b.blocks.d = b.newBlockGrads(N)
		if b.gs.recompute {
			b.blocks.v = b.newBlockValues(N, -1)
		}
	}
	v := b.blocks.v
	if !b.gs.recompute {
		v = b.newBlockValues(N, l)
	}
	for _, p := range blockTrains(L, b.lora, l) {
		b.direct[p] = true
	}
	bk := &block{be: b.be, g: b.g, L: L, l: l, N: N, lora: b.lora, mode: b.blocks.mode, v: v, d: b.blocks.d}
	return b.op(blockOp(bk, b.gs.recompute), x)
}

// blockShared is what the blocks of one graph share: their mode, the
// backward temporaries and, when they recompute, the forward values; and
// the buffers they ask for, which allocBlocks allocates once the graph is
// built.
type blockShared struct {
	mode *batchMode
	v    *blockValues
	d    *blockGrads
	bufs []sized
}

// blockTrains are the parameters of layer l whose gradients its block
// adds: its weights, or its adapters on a frozen base.
func blockTrains(L Layer, lora *LoRA, l int) []*Param {
	if lora == nil {
		return []*Param{L.AttnNorm, L.Q, L.K, L.V, L.QB, L.KB, L.VB, L.O, L.MLPNorm, L.Gate, L.Up, L.Down}
	}
	var ps []*Param
	for _, a := range lora.at[l] {
		if a != nil {
			ps = append(ps, a.A, a.B)
		}
	}
	return ps
}

// blockOp is block bk over x [N, C]; its backward pass recomputes the
// forward values first when recompute is set.
func blockOp(bk *block, recompute bool) *kernel {
	return &kernel{
		name: fmt.Sprintf("block(%d)", bk.l), inDims: []int{2}, outDims: 2, shape: same,
		diff: []bool{true},
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return bk.forward(out, in[0])
		},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(&kernel{
				name: fmt.Sprintf("blockBack(%d)", bk.l), inDims: []int{2, 2}, outDims: 2, shape: same,
				fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
					if recompute {
						if err := bk.forward(bk.d.tmp, in[0]); err != nil {
							return err
						}
					}
					return bk.backward(out, in[0], in[1])
				},
			}, nodes(in[0], dy))
		},
	}
}

// SetRecompute makes Backward recompute each decoder block's values in
// the backward pass instead of keeping them from the forward pass: the
// training graph then holds one [N, C] value per layer rather than every
// intermediate, for about one more forward pass of the blocks. The
// log-probs and gradients are the same bits either way. It is off by
// default; adapters with dropout refuse it (Backward says so).
func (m *Model) SetRecompute(on bool) {
	if m.gs.recompute == on {
		return
	}
	m.dropGraphs()
	m.gs.recompute = on
}
