package policy

// The decoder block, written once, forward and backward side by side.
// Training runs it as one graph op per layer (graph_block.go), keeping
// its values for the backward pass or recomputing them there; decoding
// runs its forward pass over a step's rows with the session's caches
// (sample.go). What differs between the two is a blockMode. Shapes as in
// the package's legend (doc.go).

import (
	"github.com/artist-rl/artist/policy/backend"
)

// block is decoder layer l over N rows:
//
//	x2 = x + o(attn(rope(q(h1)), rope(k(h1)), v(h1))),   h1 = norm(x)
//	y  = x2 + down(swiglu(gate(h2), up(h2))),             h2 = norm(x2)
//
// where every projection is p(x) = x·Wᵀ (+ b) + s·(drop(x)·Aᵀ)·Bᵀ, the
// second term where layer l's target p has a LoRA adapter (s = alpha/r;
// drop is dropout, in training only). Every value is a backend tensor
// and every step a backend kernel; the host only draws the dropout masks
// (uploaded); finished weight gradients are added into the model's
// gradients (graphMemory.addGrad).
type block struct {
	be   backend.Backend
	g    geometry
	L    Layer
	l    int
	N    int   // rows
	lora *LoRA // the model's adapters, or nil; with them the base is frozen
	mode blockMode
	v    *blockValues // where forward writes its values
	d    *blockGrads  // backward's temporaries; nil where only forward runs
}

// blockMode is what differs between the ways a block runs: over the rows
// of a padded training batch (batchMode), or over the rows of a decoding
// step, attending over the session's caches (stepMode).
type blockMode interface {
	// weight returns p's tensor for the product that follows (empty for
	// a nil p); it is valid until the next call.
	weight(p *Param) (backend.Tensor, error)
	// linear writes y [N, out] = x [N, in]·wᵀ (+ bias when not empty).
	linear(y, x backend.Tensor, in int, w, bias backend.Tensor, out int) error
	// residual writes y [N, C] = x + p_t(a) for projection t of a
	// [N, in] (base weight w), summing the terms in the mode's order.
	residual(bk *block, t loraTarget, y, x, a backend.Tensor, w *Param, in int) error
	// attend writes bk.v.a [N, H·D], the causal attention of the rotated
	// bk.v.q over the rotated keys bk.v.k and the values bk.v.v.
	attend(bk *block) error
	// attendBack writes bk.d.dq, dk and dv, attend's gradients given
	// bk.d.da (training only).
	attendBack(bk *block) error
	// rope gives the rows' positions and the rotary tables.
	rope() (pos []int, cos, sin backend.Tensor)
}

// blockValues are the values of a block's forward pass, [N, ·] each. In
// training they are what backward reads; in decoding several are one
// buffer (h1 and h2, gt and act, every u; x2 is x itself).
type blockValues struct {
	h1, q, k, v, a backend.Tensor             // [N, C], [N, H·D], [N, K·D], [N, K·D], [N, H·D]
	x2, h2         backend.Tensor             // [N, C]
	gt, up, act    backend.Tensor             // [N, F]
	probs, swi     backend.Tensor             // what Attention (N·H·T values) and SwiGLU (N·F) save, or none
	u              [numTargets]backend.Tensor // adapters' x·Aᵀ, [N, r]
	// With dropout: each adapter's input as dropped, [N, in], and its
	// mask on the host and as the backend holds it.
	drop, maskT [numTargets]backend.Tensor
	mask        [numTargets][]float32
}

// blockGrads are the temporaries of a block's backward pass, shared by
// all blocks of a graph.
type blockGrads struct {
	dact, dgt, dup, dh2, dn, dx2, da backend.Tensor // [N, F] ×3, [N, C] ×3, [N, H·D]
	dq, dk, dv, dh1                  backend.Tensor // [N, H·D], [N, K·D] ×2, [N, C]
	tmp                              backend.Tensor // [N, C]: the recomputed forward's output
	small                            backend.Tensor // a bias or norm weight's gradient, [max(C, H·D)]
	dw                               backend.Tensor // a weight's gradient, [max(F, H·D)·C]
	part                             backend.Tensor // one projection's part of a gradient, [N·max(C, F, H·D)]
	du                               backend.Tensor // [N, r]; in forward, s·u
	gm                               *graphMemory   // where finished weight gradients are added
}

// weight is the mode's tensor of p, keeping the first error in e.
func (bk *block) weight(e *errs, p *Param) backend.Tensor {
	t, err := bk.mode.weight(p)
	e.add(err)
	return t
}

// forward writes y [N, C] = block(x) for x [N, C], leaving its values in
// bk.v. y may be x only where bk.v.x2 is x too (decoding, in place).
func (bk *block) forward(y, x backend.Tensor) error {
	be, g, v, L := bk.be, bk.g, bk.v, bk.L
	C, F, HD, KD := g.C, g.F, g.H*g.D, g.K*g.D
	pos, cos, sin := bk.mode.rope()
	var e errs
	e.add(be.RMSNorm(v.h1, x, bk.weight(&e, L.AttnNorm), C, g.eps))
	e.add(bk.proj(targetQ, v.q, v.h1, L.Q, L.QB, C, HD))
	e.add(bk.proj(targetK, v.k, v.h1, L.K, L.KB, C, KD))
	e.add(bk.proj(targetV, v.v, v.h1, L.V, L.VB, C, KD))
	e.add(be.Rope(v.q, v.q, g.H, g.D, pos, cos, sin, false))
	e.add(be.Rope(v.k, v.k, g.K, g.D, pos, cos, sin, false))
	if e.err != nil {
		return e.err // attention may read the caches
	}
	e.add(bk.mode.attend(bk))
	e.add(bk.mode.residual(bk, targetO, v.x2, x, v.a, L.O, HD))
	e.add(be.RMSNorm(v.h2, v.x2, bk.weight(&e, L.MLPNorm), C, g.eps))
	e.add(bk.proj(targetGate, v.gt, v.h2, L.Gate, nil, C, F))
	e.add(bk.proj(targetUp, v.up, v.h2, L.Up, nil, C, F))
	e.add(be.SwiGLU(v.act, v.swi, v.gt, v.up))
	e.add(bk.mode.residual(bk, targetDown, y, v.x2, v.act, L.Down, F))
	return e.err
}

// proj writes y [N, out] = p_t(x) for x [N, in]: the base product, then
// the adapter's term added in.
func (bk *block) proj(t loraTarget, y, x backend.Tensor, w, bias *Param, in, out int) error {
	var e errs
	W := bk.weight(&e, w)
	b := bk.weight(&e, bias)
	if e.err != nil {
		return e.err
	}
	if err := bk.mode.linear(y, x, in, W, b, out); err != nil {
		return err
	}
	return bk.adapt(t, y, x, in, out)
}

// adapt adds s·(drop(x)·Aᵀ)·Bᵀ into y [N, out] for x [N, in] when target
// t has an adapter. x·Aᵀ stays in v.u[t]; in training s·u is computed in
// d.du, in decoding in place.
func (bk *block) adapt(t loraTarget, y, x backend.Tensor, in, out int) error {
	a := bk.adapter(t)
	if a == nil {
		return nil
	}
	be, v, N, r := bk.be, bk.v, bk.N, a.A.Shape[0]
	var e errs
	if v.mask[t] != nil {
		e.add(bk.dropout(t, x))
		x = v.drop[t]
	}
	A, B := bk.weight(&e, a.A), bk.weight(&e, a.B)
	u, us := v.u[t].Slice(0, N*r), v.u[t].Slice(0, N*r)
	e.add(linear(be, u, x, N, in, A, backend.Tensor{}, r))
	if bk.d != nil {
		us = bk.d.du.Slice(0, N*r)
		e.add(be.Copy(us, u))
	}
	e.add(be.Scale(us, bk.lora.scale))
	e.add(be.MatMul(false, true, N, out, r, us, B, 1, y.Slice(0, N*out)))
	return e.err
}

// dropout draws target t's mask from the adapters' dropout source (each
// value kept with probability 1−p, then scaled by 1/(1−p)) and writes
// v.drop[t] = mask ⊙ x.
func (bk *block) dropout(t loraTarget, x backend.Tensor) error {
	p, v := bk.lora.Config.Dropout, bk.v
	keep := float32(1 / (1 - p))
	for i := range v.mask[t] {
		m := float32(0)
		if bk.lora.drop.Float64() >= p {
			m = keep
		}
		v.mask[t][i] = m
	}
	if err := bk.be.Upload(v.maskT[t], v.mask[t]); err != nil {
		return err
	}
	return bk.be.Mul(v.drop[t], v.maskT[t], x)
}

func (bk *block) adapter(t loraTarget) *Adapter {
	if bk.lora == nil {
		return nil
	}
	return bk.lora.at[bk.l][t]
}

// backward writes dx [N, C] from x and dy [N, C] once forward(·, x) has
// filled bk.v, and adds the gradients of what trains (the weights, or the
// adapters on a frozen base) into their Param.Grad. Where a value feeds
// several projections its gradient is summed in a fixed order (value,
// key, query; gate, up, or up, gate with adapters).
func (bk *block) backward(dx, x, dy backend.Tensor) error {
	be, g, v, d, L := bk.be, bk.g, bk.v, bk.d, bk.L
	C, F, HD, KD := g.C, g.F, g.H*g.D, g.K*g.D
	pos, cos, sin := bk.mode.rope()
	var e errs
	// MLP: y = x2 + down(swiglu(gate(h2), up(h2))), h2 = norm(x2).
	e.add(bk.sum(d.dact, true, targetDown, dy, v.act, L.Down, nil, F, C))
	e.add(be.SwiGLUBack(d.dgt, d.dup, v.gt, v.up, v.swi, d.dact))
	if bk.lora == nil {
		e.add(bk.sum(d.dh2, true, targetGate, d.dgt, v.h2, L.Gate, nil, C, F))
		e.add(bk.sum(d.dh2, false, targetUp, d.dup, v.h2, L.Up, nil, C, F))
	} else {
		e.add(bk.sum(d.dh2, true, targetUp, d.dup, v.h2, L.Up, nil, C, F))
		e.add(bk.sum(d.dh2, false, targetGate, d.dgt, v.h2, L.Gate, nil, C, F))
	}
	e.add(bk.normBack(d.dn, v.x2, L.MLPNorm, d.dh2))
	e.add(be.Copy(d.dx2, dy)) // dx2 = dy + dn
	e.add(be.Add(d.dx2, d.dn))
	// Attention: x2 = x + o(attn(rope(q(h1)), rope(k(h1)), v(h1))), h1 = norm(x).
	e.add(bk.sum(d.da, true, targetO, d.dx2, v.a, L.O, nil, HD, C))
	e.add(bk.mode.attendBack(bk))
	e.add(be.Rope(d.dq, d.dq, g.H, g.D, pos, cos, sin, true))
	e.add(be.Rope(d.dk, d.dk, g.K, g.D, pos, cos, sin, true))
	e.add(bk.sum(d.dh1, true, targetV, d.dv, v.h1, L.V, L.VB, C, KD))
	e.add(bk.sum(d.dh1, false, targetK, d.dk, v.h1, L.K, L.KB, C, KD))
	e.add(bk.sum(d.dh1, false, targetQ, d.dq, v.h1, L.Q, L.QB, C, HD))
	e.add(bk.normBack(d.dn, x, L.AttnNorm, d.dh1))
	e.add(be.Copy(dx, d.dx2)) // dx = dx2 + dn
	e.add(be.Add(dx, d.dn))
	return e.err
}

// sum back-propagates dy [N, out] through projection t of x [N, in] and
// writes (first) or adds its gradient with respect to x into dx: the
// adapter's part, then the base's.
func (bk *block) sum(dx backend.Tensor, first bool, t loraTarget, dy, x backend.Tensor, w, b *Param, in, out int) error {
	dx = dx.Slice(0, bk.N*in)
	put := func(part backend.Tensor) error {
		if first {
			first = false
			return bk.be.Copy(dx, part)
		}
		return bk.be.Add(dx, part)
	}
	part := bk.d.part.Slice(0, bk.N*in)
	if a := bk.adapter(t); a != nil {
		if err := bk.adapterBack(part, a, dy, x, in, out); err != nil {
			return err
		}
		if err := put(part); err != nil {
			return err
		}
	}
	if err := bk.linearBack(part, dy, x, w, b, in, out); err != nil {
		return err
	}
	return put(part)
}

// adapterBack is the backward pass of s·(drop(x)·Aᵀ)·Bᵀ for x [N, in],
// A [r, in], B [out, r] given dy [N, out]: du = s·dy·B,
// dx = mask ⊙ (du·A), A.Grad += duᵀ·drop(x), B.Grad += s·dyᵀ·u.
func (bk *block) adapterBack(dx backend.Tensor, a *Adapter, dy, x backend.Tensor, in, out int) error {
	be, N, r := bk.be, bk.N, a.A.Shape[0]
	u, du := bk.v.u[a.t].Slice(0, N*r), bk.d.du.Slice(0, N*r)
	var e errs
	A, B := bk.weight(&e, a.A), bk.weight(&e, a.B)
	if e.err != nil {
		return e.err
	}
	scaled := func(ta bool, m, n, k int, p, q, c backend.Tensor) error {
		if err := be.MatMul(ta, false, m, n, k, p, q, 0, c); err != nil {
			return err
		}
		return be.Scale(c, bk.lora.scale)
	}
	dyv := dy.Slice(0, N*out)
	e.add(scaled(false, N, r, out, dyv, B, du))
	dB := bk.d.dw.Slice(0, out*r)
	e.add(scaled(true, out, r, N, dyv, u, dB))
	e.add(bk.addGrad(a.B, dB))
	e.add(be.MatMul(false, false, N, in, r, du, A, 0, dx))
	if bk.v.mask[a.t] != nil {
		e.add(be.Mul(dx, bk.v.maskT[a.t], dx))
		x = bk.v.drop[a.t]
	}
	dA := bk.d.dw.Slice(0, r*in)
	e.add(be.MatMul(true, false, r, in, N, du, x.Slice(0, N*in), 0, dA))
	e.add(bk.addGrad(a.A, dA))
	return e.err
}

// addGrad adds t into p's gradient (graphMemory.addGrad).
func (bk *block) addGrad(p *Param, t backend.Tensor) error {
	return bk.d.gm.addGrad(p, t)
}

// linearBack is the backward pass of y [N, out] = x [N, in]·Wᵀ (+ b):
// dx = dy·W, and unless the base is frozen W.Grad += dyᵀ·x,
// b.Grad += Σ_rows dy. A gradient is added into Param.Grad once its
// product is complete (a product that accumulated into W.Grad would
// round differently).
func (bk *block) linearBack(dx, dy, x backend.Tensor, w, b *Param, in, out int) error {
	be, N := bk.be, bk.N
	var e errs
	W := bk.weight(&e, w)
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
	dw := bk.d.dw.Slice(0, out*in)
	e.add(be.MatMul(true, false, out, in, N, dyv, x.Slice(0, N*in), 0, dw))
	e.add(bk.addGrad(w, dw))
	if b != nil {
		db := bk.d.small.Slice(0, out)
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
	W := bk.weight(&e, w)
	if e.err != nil {
		return e.err
	}
	if err := be.RMSNormBack(dx, backend.Tensor{}, x, W, dy, g.C, g.eps); err != nil {
		return err
	}
	if bk.lora != nil {
		return nil
	}
	dw := bk.d.small.Slice(0, g.C)
	e.add(be.RMSNormBack(backend.Tensor{}, dw, x, W, dy, g.C, g.eps))
	e.add(bk.addGrad(w, dw))
	return e.err
}
