package policy

// Activation recomputation: with graphSettings.recompute each decoder
// block of the training graph is one node whose forward pass keeps
// nothing but its output (the next block's input), and whose backward
// pass runs the block's forward again into buffers every block shares
// before it back-propagates through it. The graph then holds one
// [N, C] value per layer instead of every intermediate of every layer.
// The block's kernels are those of the graph's own nodes, called in the
// same order on the same values, so the gradients are the same bits.
//
// The gradients of what trains in a block (its weights, or its adapters
// on a frozen base) are added into Param.Grad by the backward kernel
// itself (they are no graph nodes), each after its product is complete,
// as the graph adds its own. Shape legend as in graph.go.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// blockScratch holds one block's forward values and backward temporaries
// for N rows, as backend tensors; every block of a graph uses the same
// one, one at a time.
type blockScratch struct {
	h1, q0, q, k0, k, v, a, x2, h2, gt, up, act backend.Tensor // forward values
	probs, swi                                  backend.Tensor // saved by attention (N·H·T values, or none) and SwiGLU (N·F)
	dact, dgt, dup, dh2, dn, dx2, da            backend.Tensor // backward, MLP then attention
	dq, dk, dv, dq0, dk0, dh1, tmp              backend.Tensor
	small                                       backend.Tensor             // a bias or norm weight's gradient, [max(C, H·D)]
	dw                                          backend.Tensor             // a weight's gradient, [max(F, H·D)·C]
	part                                        backend.Tensor             // one projection's part of a gradient, [N·max(C, F, H·D)]
	u                                           [numTargets]backend.Tensor // adapters' x·Aᵀ, [N, r] each
	du                                          backend.Tensor             // [N, r]
	host                                        []float32                  // a device gradient brought back to be added into Param.Grad, [max(F, H·D)·C]
	n                                           int                        // values in all
}

func newBlockScratch(gm *graphMemory, g geometry, N, T, maxSavedProbs int, lora *LoRA) (*blockScratch, error) {
	C, F, HD, KD := g.C, g.F, g.H*g.D, g.K*g.D
	s := &blockScratch{}
	var err error
	f := func(t *backend.Tensor, n int) {
		if err == nil {
			*t, err = gm.scratch(n)
			s.n += n
		}
	}
	for _, sz := range []struct {
		t *backend.Tensor
		n int
	}{
		{&s.h1, N * C}, {&s.q0, N * HD}, {&s.q, N * HD}, {&s.k0, N * KD}, {&s.k, N * KD}, {&s.v, N * KD}, {&s.a, N * HD},
		{&s.x2, N * C}, {&s.h2, N * C}, {&s.gt, N * F}, {&s.up, N * F}, {&s.act, N * F}, {&s.swi, N * F},
		{&s.dact, N * F}, {&s.dgt, N * F}, {&s.dup, N * F}, {&s.dh2, N * C}, {&s.dn, N * C}, {&s.dx2, N * C}, {&s.da, N * HD},
		{&s.dq, N * HD}, {&s.dk, N * KD}, {&s.dv, N * KD}, {&s.dq0, N * HD}, {&s.dk0, N * KD}, {&s.dh1, N * C}, {&s.tmp, N * C},
		{&s.small, max(C, HD)}, {&s.dw, max(F, HD) * C}, {&s.part, N * max(C, F, HD)},
	} {
		f(sz.t, sz.n)
	}
	if lora != nil {
		f(&s.du, N*lora.Config.Rank)
		for t := range s.u {
			f(&s.u[t], N*lora.Config.Rank)
		}
	}
	if n := N * g.H * T; n <= maxSavedProbs {
		f(&s.probs, n)
	}
	if !gm.host {
		s.host = make([]float32, max(F, HD)*C)
	}
	return s, err
}

// bytes is the scratch's memory.
func (s *blockScratch) bytes() int64 { return int64(s.n) * 4 }

// block is what one decoder block's kernels need: the backend, sizes,
// rotary tables and the block's weights.
type block struct {
	be       backend.Backend
	gm       *graphMemory
	g        geometry
	T        int
	cos, sin backend.Tensor
	L        Layer
	sc       *blockScratch
	lora     *LoRA   // the model's adapters (the base is then frozen), or nil
	l        int     // the block's layer
	scale    float32 // the adapters' alpha/rank
}

// recomputedLayer adds decoder block l as one node (blockOp).
func (b *builder) recomputedLayer(x *G.Node, l int, L Layer) *G.Node {
	if b.err != nil {
		return nil
	}
	bk := &block{be: b.be, gm: b.gm, g: b.g, T: b.T, cos: b.cosT, sin: b.sinT, L: L, lora: b.lora, l: l}
	trains := []*Param{L.AttnNorm, L.Q, L.K, L.V, L.QB, L.KB, L.VB, L.O, L.MLPNorm, L.Gate, L.Up, L.Down}
	if b.lora != nil {
		if p := b.lora.Config.Dropout; p > 0 {
			b.err = fmt.Errorf("policy: activation recomputation takes adapters without dropout (lora dropout is %g): set it to 0 or turn recomputation off", p)
			return nil
		}
		bk.scale, trains = b.lora.scale, nil
		for _, a := range b.lora.at[l] {
			if a != nil {
				trains = append(trains, a.A, a.B)
			}
		}
	}
	if b.blocks == nil {
		sc, err := newBlockScratch(b.gm, b.g, x.Shape()[0], b.T, b.gs.maxSavedProbs, b.lora)
		if err != nil {
			b.err = fmt.Errorf("policy: block scratch: %w", err)
			return nil
		}
		b.blocks = sc
		b.scratchBytes += b.blocks.bytes()
	}
	bk.sc = b.blocks
	for _, p := range trains {
		if p != nil {
			b.direct[p] = true
		}
	}
	return b.op(blockOp(bk, l), x)
}

// blockOp is decoder block l over x [N, C], keeping nothing for its
// backward pass, which recomputes it.
func blockOp(bk *block, l int) *kernel {
	return &kernel{
		name: fmt.Sprintf("block(%d)", l), inDims: []int{2}, outDims: 2, shape: same,
		diff: []bool{true},
		fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
			return bk.forward(out, in[0])
		},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(&kernel{
				name: fmt.Sprintf("blockBack(%d)", l), inDims: []int{2, 2}, outDims: 2, shape: same,
				fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
					if err := bk.forward(bk.sc.tmp, in[0]); err != nil {
						return err
					}
					return bk.backward(out, in[0], in[1])
				},
			}, nodes(in[0], dy))
		},
	}
}

// forward writes y [N, C] = block(x), leaving its values in the scratch.
func (bk *block) forward(y, x backend.Tensor) error {
	be, g, s, L := bk.be, bk.g, bk.sc, bk.L
	C, F, HD, KD, N := g.C, g.F, g.H*g.D, g.K*g.D, x.Len()/g.C
	pos := bk.positions(N)
	var e errs
	w := bk.weights(&e)
	e.add(be.RMSNorm(s.h1, x, w(L.AttnNorm), C, g.eps))
	e.add(bk.proj(targetQ, s.q0, s.h1, w(L.Q), w(L.QB), N, C, HD))
	e.add(be.Rope(s.q, s.q0, g.H, g.D, pos, bk.cos, bk.sin, false))
	e.add(bk.proj(targetK, s.k0, s.h1, w(L.K), w(L.KB), N, C, KD))
	e.add(be.Rope(s.k, s.k0, g.K, g.D, pos, bk.cos, bk.sin, false))
	e.add(bk.proj(targetV, s.v, s.h1, w(L.V), w(L.VB), N, C, KD))
	e.add(be.Attention(s.a, s.probs, s.q, s.k, s.v, g.heads(), bk.T))
	e.add(bk.proj(targetO, s.x2, s.a, w(L.O), backend.Tensor{}, N, HD, C))
	e.add(be.Add(s.x2, x)) // x2 = x + o
	e.add(be.RMSNorm(s.h2, s.x2, w(L.MLPNorm), C, g.eps))
	e.add(bk.proj(targetGate, s.gt, s.h2, w(L.Gate), backend.Tensor{}, N, C, F))
	e.add(bk.proj(targetUp, s.up, s.h2, w(L.Up), backend.Tensor{}, N, C, F))
	e.add(be.SwiGLU(s.act, s.swi, s.gt, s.up))
	e.add(bk.proj(targetDown, y, s.act, w(L.Down), backend.Tensor{}, N, F, C))
	e.add(be.Add(y, s.x2)) // y = x2 + down
	return e.err
}

// weights returns the function that gives a parameter's tensor, keeping
// the first error in e.
func (bk *block) weights(e *errs) func(*Param) backend.Tensor {
	return func(p *Param) backend.Tensor {
		t, err := bk.gm.param(p)
		e.add(err)
		return t
	}
}

// positions are the rows' positions: row r holds position r mod T.
func (bk *block) positions(N int) []int {
	pos := make([]int, N)
	for r := range pos {
		pos[r] = r % bk.T
	}
	return pos
}

// proj writes y [N, out] = x [N, in]·Wᵀ (+ bias), plus s·(x·Aᵀ)·Bᵀ when
// target t has an adapter (whose product x·Aᵀ stays in the scratch).
func (bk *block) proj(t loraTarget, y, x, w, bias backend.Tensor, N, in, out int) error {
	if err := linear(bk.be, y, x, N, in, w, bias, out); err != nil {
		return err
	}
	a := bk.adapter(t)
	if a == nil {
		return nil
	}
	r, u, us := a.A.Shape[0], bk.sc.u[t], bk.sc.du
	var e errs
	A, B := bk.weights(&e)(a.A), bk.weights(&e)(a.B)
	e.add(linear(bk.be, u, x, N, in, A, backend.Tensor{}, r))
	e.add(bk.be.Copy(us.Slice(0, u.Len()), u))
	e.add(bk.be.Scale(us.Slice(0, u.Len()), bk.scale))
	e.add(bk.be.MatMul(false, true, N, out, r, us, B, 1, y.Slice(0, N*out)))
	return e.err
}

func (bk *block) adapter(t loraTarget) *Adapter {
	if bk.lora == nil {
		return nil
	}
	return bk.lora.at[bk.l][t]
}

// backward writes dx [N, C] from x and dy after forward(·, x) filled the
// scratch, adding the gradients of what trains into their Param.Grad.
// Where a value feeds several projections its gradient is summed in the
// order the graph sums it (value, key, query; gate, up).
func (bk *block) backward(dx, x, dy backend.Tensor) error {
	be, g, s, L := bk.be, bk.g, bk.sc, bk.L
	C, F, HD, KD, N := g.C, g.F, g.H*g.D, g.K*g.D, x.Len()/g.C
	pos := bk.positions(N)
	var e errs
	// MLP: y = x2 + down(swiglu(gate(h2), up(h2))), h2 = norm(x2).
	e.add(bk.sum(s.dact, true, targetDown, dy, s.act, L.Down, nil, N, F, C))
	e.add(be.SwiGLUBack(s.dgt, s.dup, s.gt, s.up, s.swi, s.dact))
	if bk.lora == nil {
		e.add(bk.sum(s.dh2, true, targetGate, s.dgt, s.h2, L.Gate, nil, N, C, F))
		e.add(bk.sum(s.dh2, false, targetUp, s.dup, s.h2, L.Up, nil, N, C, F))
	} else { // the graph of adapters sums these two the other way
		e.add(bk.sum(s.dh2, true, targetUp, s.dup, s.h2, L.Up, nil, N, C, F))
		e.add(bk.sum(s.dh2, false, targetGate, s.dgt, s.h2, L.Gate, nil, N, C, F))
	}
	e.add(bk.normBack(s.dn, s.x2, L.MLPNorm, s.dh2))
	e.add(be.Copy(s.dx2, dy)) // dx2 = dy + dn
	e.add(be.Add(s.dx2, s.dn))
	// Attention: x2 = x + o(attn(rope(q(h1)), rope(k(h1)), v(h1))), h1 = norm(x).
	e.add(bk.sum(s.da, true, targetO, s.dx2, s.a, L.O, nil, N, HD, C))
	e.add(be.AttentionBack(s.dq, s.dk, s.dv, s.q, s.k, s.v, s.a, s.probs, s.da, g.heads(), bk.T))
	e.add(be.Rope(s.dq0, s.dq, g.H, g.D, pos, bk.cos, bk.sin, true))
	e.add(be.Rope(s.dk0, s.dk, g.K, g.D, pos, bk.cos, bk.sin, true))
	e.add(bk.sum(s.dh1, true, targetV, s.dv, s.h1, L.V, L.VB, N, C, KD))
	e.add(bk.sum(s.dh1, false, targetK, s.dk0, s.h1, L.K, L.KB, N, C, KD))
	e.add(bk.sum(s.dh1, false, targetQ, s.dq0, s.h1, L.Q, L.QB, N, C, HD))
	e.add(bk.normBack(s.dn, x, L.AttnNorm, s.dh1))
	e.add(be.Copy(dx, s.dx2)) // dx = dx2 + dn
	e.add(be.Add(dx, s.dn))
	return e.err
}

// sum back-propagates dy [N, out] through projection t of x [N, in] and
// writes (first) or adds its gradient with respect to x into dx: the
// adapter's part, then the base's.
func (bk *block) sum(dx backend.Tensor, first bool, t loraTarget, dy, x backend.Tensor, w, b *Param, N, in, out int) error {
	dx = dx.Slice(0, N*in)
	put := func(part backend.Tensor) error {
		if first {
			first = false
			return bk.be.Copy(dx, part)
		}
		return bk.be.Add(dx, part)
	}
	part := bk.sc.part.Slice(0, N*in)
	if a := bk.adapter(t); a != nil {
		if err := bk.adapterBack(part, a, dy, x, N, in, out); err != nil {
			return err
		}
		if err := put(part); err != nil {
			return err
		}
	}
	if err := bk.linearBack(part, dy, x, w, b, N, in, out); err != nil {
		return err
	}
	return put(part)
}

// adapterBack is the backward pass of s·(x·Aᵀ)·Bᵀ for x [N, in], A
// [r, in], B [out, r] given dy [N, out]: dx = du·A with du = s·dy·B, and
// A.Grad += duᵀ·x, B.Grad += s·dyᵀ·u.
func (bk *block) adapterBack(dx backend.Tensor, a *Adapter, dy, x backend.Tensor, N, in, out int) error {
	be, r := bk.be, a.A.Shape[0]
	u, du := bk.sc.u[a.t], bk.sc.du
	var e errs
	A, B := bk.weights(&e)(a.A), bk.weights(&e)(a.B)
	if e.err != nil {
		return e.err
	}
	scaled := func(ta bool, m, n, k int, p, q, c backend.Tensor) error {
		if err := be.MatMul(ta, false, m, n, k, p, q, 0, c); err != nil {
			return err
		}
		return be.Scale(c, bk.scale)
	}
	dyv := dy.Slice(0, N*out)
	e.add(scaled(false, N, r, out, dyv, B, du))
	dB := bk.sc.dw.Slice(0, out*r)
	e.add(scaled(true, out, r, N, dyv, u, dB))
	e.add(bk.addGrad(a.B, dB))
	e.add(be.MatMul(false, false, N, in, r, du, A, 0, dx))
	dA := bk.sc.dw.Slice(0, r*in)
	e.add(be.MatMul(true, false, r, in, N, du, x.Slice(0, N*in), 0, dA))
	e.add(bk.addGrad(a.A, dA))
	return e.err
}

// addGrad adds t into p.Grad on the host (see addGrad).
func (bk *block) addGrad(p *Param, t backend.Tensor) error {
	return addGrad(bk.be, p.Grad, t, bk.sc.host)
}

// linearBack is the backward pass of y [N, out] = x [N, in]·Wᵀ (+ b):
// dx = dy·W, and unless the base is frozen W.Grad += dyᵀ·x,
// b.Grad += Σ_rows dy. The product is added after it is complete, as the
// graph adds its gradients: a product that accumulated into W.Grad would
// round differently.
func (bk *block) linearBack(dx, dy, x backend.Tensor, w, b *Param, N, in, out int) error {
	be := bk.be
	var e errs
	W := bk.weights(&e)(w)
	if e.err != nil {
		return e.err
	}
	dyv := dy.Slice(0, N*out)
	if err := be.MatMul(false, false, N, in, out, dyv, W, 0, dx.Slice(0, N*in)); err != nil {
		return err
	}
	if bk.lora != nil {
		return nil
	}
	dw := bk.sc.dw.Slice(0, out*in)
	e.add(be.MatMul(true, false, out, in, N, dyv, x.Slice(0, N*in), 0, dw))
	e.add(bk.addGrad(w, dw))
	if b != nil {
		db := bk.sc.small.Slice(0, out)
		e.add(be.ColSum(db, dyv))
		e.add(bk.addGrad(b, db))
	}
	return e.err
}

// normBack writes dx of y = RMSNorm(x, w) given dy, and adds dw into
// w.Grad unless the base is frozen.
func (bk *block) normBack(dx, x backend.Tensor, w *Param, dy backend.Tensor) error {
	be, g := bk.be, bk.g
	var e errs
	W := bk.weights(&e)(w)
	if e.err != nil {
		return e.err
	}
	if err := be.RMSNormBack(dx, backend.Tensor{}, x, W, dy, g.C, g.eps); err != nil {
		return err
	}
	if bk.lora != nil {
		return nil
	}
	dw := bk.sc.small.Slice(0, g.C)
	e.add(be.RMSNormBack(backend.Tensor{}, dw, x, W, dy, g.C, g.eps))
	e.add(bk.addGrad(w, dw))
	return e.err
}

// add does y += x.
func add(y, x []float32) {
	for i, v := range x {
		y[i] += v
	}
}

// embed is the graph's embedding of ids [N]: x [N, C], and the anchor
// input the graph must ask the gradient of (nil when none). With
// recomputing blocks, or with the fused head on full weights, x passes
// through anchorOp; with the fused head on full weights the embedding's
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
	if !m.gs.recompute && !b.directEmbed {
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
// gradient (dx scattered by ids) into embed.Grad.
func anchorOp(be backend.Backend, C int, embed *Param) *kernel {
	return &kernel{
		name: fmt.Sprintf("anchor(%t)", embed != nil), inDims: []int{2, 1, 1}, outDims: 2, shape: same,
		fwd:  func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error { return be.Copy(out, in[0]) },
		diff: []bool{true, true, false},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			sc := &embedScatter{C: C}
			da, err := apply(&kernel{
				name: fmt.Sprintf("anchorGrad(%t)", embed != nil), inDims: []int{2, 1}, outDims: 1,
				shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{1} },
				fwd: func(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
					if err := be.Upload(out, []float32{0}); err != nil {
						return err
					}
					if embed == nil {
						return nil
					}
					ids, err := download(be, in[1])
					if err != nil {
						return err
					}
					dx, err := download(be, in[0])
					if err != nil {
						return err
					}
					sc.add(embed.Grad, ids, dx)
					return nil
				},
			}, dy, in[2])
			return G.Nodes{dy, da, nil}, err
		},
	}
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
