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
// for N rows; every block of a graph uses the same one, one at a time.
type blockScratch struct {
	h1, q0, q, k0, k, v, a, x2, h2, gt, up, act []float32 // forward values
	probs, swi                                  []float32 // saved by attention (N·H·T values, or none) and SwiGLU (N·F)
	dact, dgt, dup, dh2, dn, dx2, da            []float32 // backward, MLP then attention
	dq, dk, dv, dq0, dk0, dh1, tmp              []float32
	small                                       []float32             // a bias or norm weight's gradient, [max(C, H·D)]
	dw                                          []float32             // a weight's gradient, [max(F, H·D)·C]
	part                                        []float32             // one projection's part of a gradient, [N·max(C, F, H·D)]
	u                                           [numTargets][]float32 // adapters' x·Aᵀ, [N, r] each
	du                                          []float32             // [N, r]
}

func newBlockScratch(g geometry, N, T, maxSavedProbs int, lora *LoRA) *blockScratch {
	C, F, HD, KD := g.C, g.F, g.H*g.D, g.K*g.D
	f := func(n int) []float32 { return make([]float32, n) }
	s := &blockScratch{
		h1: f(N * C), q0: f(N * HD), q: f(N * HD), k0: f(N * KD), k: f(N * KD), v: f(N * KD), a: f(N * HD),
		x2: f(N * C), h2: f(N * C), gt: f(N * F), up: f(N * F), act: f(N * F), swi: f(N * F),
		dact: f(N * F), dgt: f(N * F), dup: f(N * F), dh2: f(N * C), dn: f(N * C), dx2: f(N * C), da: f(N * HD),
		dq: f(N * HD), dk: f(N * KD), dv: f(N * KD), dq0: f(N * HD), dk0: f(N * KD), dh1: f(N * C), tmp: f(N * C),
		small: f(max(C, HD)), dw: f(max(F, HD) * C), part: f(N * max(C, F, HD)),
	}
	if lora != nil {
		s.du = f(N * lora.Config.Rank)
		for t := range s.u {
			s.u[t] = f(N * lora.Config.Rank)
		}
	}
	if n := N * g.H * T; n <= maxSavedProbs {
		s.probs = f(n)
	}
	return s
}

// bytes is the scratch's memory.
func (s *blockScratch) bytes() int64 {
	n := 0
	for _, b := range [][]float32{s.h1, s.q0, s.q, s.k0, s.k, s.v, s.a, s.x2, s.h2, s.gt, s.up, s.act, s.probs, s.swi,
		s.dact, s.dgt, s.dup, s.dh2, s.dn, s.dx2, s.da, s.dq, s.dk, s.dv, s.dq0, s.dk0, s.dh1, s.tmp, s.small, s.dw, s.part, s.du} {
		n += len(b)
	}
	for _, b := range s.u {
		n += len(b)
	}
	return int64(n) * 4
}

// block is what one decoder block's kernels need: the backend, sizes,
// rotary tables and the block's weights.
type block struct {
	be       backend.Backend
	g        geometry
	T        int
	cos, sin []float32
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
	bk := &block{be: b.be, g: b.g, T: b.T, cos: b.cos, sin: b.sin, L: L, lora: b.lora, l: l}
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
		b.blocks = newBlockScratch(b.g, x.Shape()[0], b.T, b.gs.maxSavedProbs, b.lora)
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
		fwd: func(out []float32, in [][]float32, _ []tensor.Shape) error {
			return bk.forward(out, in[0])
		},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			return grads(&kernel{
				name: fmt.Sprintf("blockBack(%d)", l), inDims: []int{2, 2}, outDims: 2, shape: same,
				fwd: func(out []float32, in [][]float32, _ []tensor.Shape) error {
					if err := bk.forward(bk.sc.tmp, in[0]); err != nil {
						return err
					}
					return bk.backward(out, in[0], in[1])
				},
			}, nodes(in[0], dy))
		},
	}
}

func data(p *Param) []float32 {
	if p == nil {
		return nil
	}
	return p.Data
}

// forward writes y [N, C] = block(x), leaving its values in the scratch.
func (bk *block) forward(y, x []float32) error {
	be, g, s, L := bk.be, bk.g, bk.sc, bk.L
	C, F, HD, KD, N := g.C, g.F, g.H*g.D, g.K*g.D, len(x)/g.C
	pos := bk.positions(N)
	var e errs
	e.add(be.RMSNorm(host(s.h1), host(x), host(L.AttnNorm.Data), C, g.eps))
	e.add(bk.proj(targetQ, s.q0, s.h1, L.Q, L.QB, N, C, HD))
	e.add(be.Rope(host(s.q), host(s.q0), g.H, g.D, pos, host(bk.cos), host(bk.sin), false))
	e.add(bk.proj(targetK, s.k0, s.h1, L.K, L.KB, N, C, KD))
	e.add(be.Rope(host(s.k), host(s.k0), g.K, g.D, pos, host(bk.cos), host(bk.sin), false))
	e.add(bk.proj(targetV, s.v, s.h1, L.V, L.VB, N, C, KD))
	e.add(be.Attention(host(s.a), host(s.probs), host(s.q), host(s.k), host(s.v), g.heads(), bk.T))
	e.add(bk.proj(targetO, s.x2, s.a, L.O, nil, N, HD, C))
	for i, v := range x {
		s.x2[i] = v + s.x2[i]
	}
	e.add(be.RMSNorm(host(s.h2), host(s.x2), host(L.MLPNorm.Data), C, g.eps))
	e.add(bk.proj(targetGate, s.gt, s.h2, L.Gate, nil, N, C, F))
	e.add(bk.proj(targetUp, s.up, s.h2, L.Up, nil, N, C, F))
	e.add(be.SwiGLU(host(s.act), host(s.swi), host(s.gt), host(s.up)))
	e.add(bk.proj(targetDown, y, s.act, L.Down, nil, N, F, C))
	for i, v := range s.x2 {
		y[i] = v + y[i]
	}
	return e.err
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
func (bk *block) proj(t loraTarget, y, x []float32, w, bias *Param, N, in, out int) error {
	if err := hostLinear(bk.be, y, x, N, in, w.Data, data(bias), out); err != nil {
		return err
	}
	a := bk.adapter(t)
	if a == nil {
		return nil
	}
	r, u, us := a.A.Shape[0], bk.sc.u[t], bk.sc.du
	if err := hostLinear(bk.be, u, x, N, in, a.A.Data, nil, r); err != nil {
		return err
	}
	for i, v := range u {
		us[i] = bk.scale * v
	}
	return bk.be.MatMul(false, true, N, out, r, host(us), host(a.B.Data), 1, host(y[:N*out]))
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
func (bk *block) backward(dx, x, dy []float32) error {
	be, g, s, L := bk.be, bk.g, bk.sc, bk.L
	C, F, HD, KD, N := g.C, g.F, g.H*g.D, g.K*g.D, len(x)/g.C
	pos := bk.positions(N)
	var e errs
	// MLP: y = x2 + down(swiglu(gate(h2), up(h2))), h2 = norm(x2).
	e.add(bk.sum(s.dact, true, targetDown, dy, s.act, L.Down, nil, N, F, C))
	e.add(be.SwiGLUBack(host(s.dgt), host(s.dup), host(s.gt), host(s.up), host(s.swi), host(s.dact)))
	if bk.lora == nil {
		e.add(bk.sum(s.dh2, true, targetGate, s.dgt, s.h2, L.Gate, nil, N, C, F))
		e.add(bk.sum(s.dh2, false, targetUp, s.dup, s.h2, L.Up, nil, N, C, F))
	} else { // the graph of adapters sums these two the other way
		e.add(bk.sum(s.dh2, true, targetUp, s.dup, s.h2, L.Up, nil, N, C, F))
		e.add(bk.sum(s.dh2, false, targetGate, s.dgt, s.h2, L.Gate, nil, N, C, F))
	}
	e.add(bk.normBack(s.dn, s.x2, L.MLPNorm, s.dh2))
	for i, v := range dy {
		s.dx2[i] = v + s.dn[i]
	}
	// Attention: x2 = x + o(attn(rope(q(h1)), rope(k(h1)), v(h1))), h1 = norm(x).
	e.add(bk.sum(s.da, true, targetO, s.dx2, s.a, L.O, nil, N, HD, C))
	e.add(be.AttentionBack(host(s.dq), host(s.dk), host(s.dv), host(s.q), host(s.k), host(s.v), host(s.a), host(s.probs), host(s.da), g.heads(), bk.T))
	e.add(be.Rope(host(s.dq0), host(s.dq), g.H, g.D, pos, host(bk.cos), host(bk.sin), true))
	e.add(be.Rope(host(s.dk0), host(s.dk), g.K, g.D, pos, host(bk.cos), host(bk.sin), true))
	e.add(bk.sum(s.dh1, true, targetV, s.dv, s.h1, L.V, L.VB, N, C, KD))
	e.add(bk.sum(s.dh1, false, targetK, s.dk0, s.h1, L.K, L.KB, N, C, KD))
	e.add(bk.sum(s.dh1, false, targetQ, s.dq0, s.h1, L.Q, L.QB, N, C, HD))
	e.add(bk.normBack(s.dn, x, L.AttnNorm, s.dh1))
	for i, v := range s.dx2 {
		dx[i] = v + s.dn[i]
	}
	return e.err
}

// sum back-propagates dy [N, out] through projection t of x [N, in] and
// writes (first) or adds its gradient with respect to x into dx: the
// adapter's part, then the base's.
func (bk *block) sum(dx []float32, first bool, t loraTarget, dy, x []float32, w, b *Param, N, in, out int) error {
	put := func(part []float32) {
		if first {
			copy(dx[:N*in], part)
			first = false
		} else {
			add(dx[:N*in], part)
		}
	}
	part := bk.sc.part[:N*in]
	if a := bk.adapter(t); a != nil {
		if err := bk.adapterBack(part, a, dy, x, N, in, out); err != nil {
			return err
		}
		put(part)
	}
	if err := bk.linearBack(part, dy, x, w, b, N, in, out); err != nil {
		return err
	}
	put(part)
	return nil
}

// adapterBack is the backward pass of s·(x·Aᵀ)·Bᵀ for x [N, in], A
// [r, in], B [out, r] given dy [N, out]: dx = du·A with du = s·dy·B, and
// A.Grad += duᵀ·x, B.Grad += s·dyᵀ·u.
func (bk *block) adapterBack(dx []float32, a *Adapter, dy, x []float32, N, in, out int) error {
	be, r := bk.be, a.A.Shape[0]
	u, du := bk.sc.u[a.t], bk.sc.du
	scaled := func(ta bool, m, n, k int, p, q []float32, c []float32) error {
		if err := be.MatMul(ta, false, m, n, k, host(p), host(q), 0, host(c)); err != nil {
			return err
		}
		for i := range c {
			c[i] *= bk.scale
		}
		return nil
	}
	if err := scaled(false, N, r, out, dy[:N*out], a.B.Data, du); err != nil {
		return err
	}
	dB := bk.sc.dw[:out*r]
	if err := scaled(true, out, r, N, dy[:N*out], u, dB); err != nil {
		return err
	}
	add(a.B.Grad, dB)
	if err := be.MatMul(false, false, N, in, r, host(du), host(a.A.Data), 0, host(dx)); err != nil {
		return err
	}
	dA := bk.sc.dw[:r*in]
	if err := be.MatMul(true, false, r, in, N, host(du), host(x[:N*in]), 0, host(dA)); err != nil {
		return err
	}
	add(a.A.Grad, dA)
	return nil
}

// linearBack is the backward pass of y [N, out] = x [N, in]·Wᵀ (+ b):
// dx = dy·W, and unless the base is frozen W.Grad += dyᵀ·x,
// b.Grad += Σ_rows dy. The product is added after it is complete, as the
// graph adds its gradients: a product that accumulated into W.Grad would
// round differently.
func (bk *block) linearBack(dx, dy, x []float32, w, b *Param, N, in, out int) error {
	be := bk.be
	if err := be.MatMul(false, false, N, in, out, host(dy[:N*out]), host(w.Data), 0, host(dx[:N*in])); err != nil {
		return err
	}
	if bk.lora != nil {
		return nil
	}
	dw := bk.sc.dw[:out*in]
	if err := be.MatMul(true, false, out, in, N, host(dy[:N*out]), host(x[:N*in]), 0, host(dw)); err != nil {
		return err
	}
	add(w.Grad, dw)
	if b != nil {
		db := bk.sc.small[:out]
		if err := be.ColSum(host(db), host(dy[:N*out])); err != nil {
			return err
		}
		add(b.Grad, db)
	}
	return nil
}

// normBack writes dx of y = RMSNorm(x, w) given dy, and adds dw into
// w.Grad unless the base is frozen.
func (bk *block) normBack(dx, x []float32, w *Param, dy []float32) error {
	be, g := bk.be, bk.g
	if err := be.RMSNormBack(host(dx), backend.Tensor{}, host(x), host(w.Data), host(dy), g.C, g.eps); err != nil {
		return err
	}
	if bk.lora != nil {
		return nil
	}
	dw := bk.sc.small[:g.C]
	if err := be.RMSNormBack(backend.Tensor{}, host(dw), host(x), host(w.Data), host(dy), g.C, g.eps); err != nil {
		return err
	}
	add(w.Grad, dw)
	return nil
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
	anchor = G.NewVector(eg, tensor.Float32, G.WithShape(1), G.WithName("anchor"), G.WithValue(tensor.New(tensor.WithShape(1), tensor.Of(tensor.Float32))))
	var into *Param
	if b.directEmbed {
		into = m.Embed
	}
	return b.op(anchorOp(b.g.C, into), x, anchor, ids), anchor
}

// anchorOp passes x [N, C] on unchanged beside an input a [1] of the
// graph whose gradient (0) is computed from x's, and ids [N]: the blocks'
// backward kernels then all run when the graph asks for a's gradient.
// When embed is set, the gradient kernel also adds the embedding's
// gradient (dx scattered by ids) into embed.Grad.
func anchorOp(C int, embed *Param) *kernel {
	return &kernel{
		name: fmt.Sprintf("anchor(%t)", embed != nil), inDims: []int{2, 1, 1}, outDims: 2, shape: same,
		fwd:  func(out []float32, in [][]float32, _ []tensor.Shape) error { copy(out, in[0]); return nil },
		diff: []bool{true, true, false},
		grad: func(in G.Nodes, _, dy *G.Node) (G.Nodes, error) {
			sc := &embedScatter{C: C}
			da, err := apply(&kernel{
				name: fmt.Sprintf("anchorGrad(%t)", embed != nil), inDims: []int{2, 1}, outDims: 1,
				shape: func([]tensor.Shape) tensor.Shape { return tensor.Shape{1} },
				fwd: func(out []float32, in [][]float32, _ []tensor.Shape) error {
					out[0] = 0
					if embed != nil {
						sc.add(embed.Grad, in[1], in[0])
					}
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
