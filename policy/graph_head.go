package policy

// The fused LM head of the training graph: the head's product, the
// log-softmax over the vocabulary and the pick of each row's target,
// forward and backward, a chunk of rows at a time, so that the [N, V]
// logits (and their gradient) never exist whole. The backward pass
// recomputes each chunk's logits from x and W, as fused linear
// cross-entropy does (Liger, verl). Shapes as in the package's legend
// (doc.go).

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
	sc, err := newHeadScratch(b.gm, rows, b.g)
	if err != nil {
		b.err = fmt.Errorf("policy: fused head: %w", err)
		return nil
	}
	b.scratchBytes += int64(2*rows*V+3*rows*b.g.C+3*rows) * 4
	return b.op(headLogProbOp(b.be, b.g, b.invTemp, rows, sc, direct), x, b.pn[w], targets)
}

// headScratch is the buffers, in the backend's memory, that the fused
// head's forward and backward kernels share: one chunk's logits and
// their gradient [R, V]; the backward pass's gathered rows of x and
// their dx [R, C], targets, dy and saved log-sum-exps [R] (with host
// staging for the two it fills on the host); and R·C zeros, never
// written, that clear the rows of dx without a gradient.
type headScratch struct {
	logits, dlogits, xb, dxb, zeros, tb, db, lb backend.Tensor
	tbH, dbH                                    []float32
}

func newHeadScratch(gm *graphMemory, rows int, g geometry) (*headScratch, error) {
	sc := &headScratch{tbH: make([]float32, rows), dbH: make([]float32, rows)}
	for _, b := range []struct {
		t *backend.Tensor
		n int
	}{
		{&sc.logits, rows * g.V}, {&sc.dlogits, rows * g.V}, {&sc.xb, rows * g.C}, {&sc.dxb, rows * g.C},
		{&sc.zeros, rows * g.C}, {&sc.tb, rows}, {&sc.db, rows}, {&sc.lb, rows},
	} {
		t, err := gm.scratch(b.n)
		if err != nil {
			return nil, err
		}
		*b.t = t
	}
	return sc, nil
}

// scaleBy multiplies t by inv in place, unless inv is 1 (scaleLogits).
func scaleBy(be backend.Backend, t backend.Tensor, inv float32) error {
	if inv == 1 {
		return nil
	}
	return be.Scale(t, inv)
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
	k.fwd = func(out backend.Tensor, in []backend.Tensor, s []tensor.Shape) error {
		x, w, tg := in[0], in[1], in[2]
		N := s[0][0]
		for lo := 0; lo < N; lo += rows {
			c := min(rows, N-lo)
			lg := sc.logits.Slice(0, c*V)
			var sv backend.Tensor
			if k.saved != nil {
				sv = k.savedT.Slice(lo, lo+c)
			}
			var e errs
			e.add(be.MatMul(false, true, c, V, C, x.Slice(lo*C, (lo+c)*C), w, 0, lg))
			e.add(scaleBy(be, lg, inv))
			e.add(be.TokenLogProb(out.Slice(lo, lo+c), sv, lg, tg.Slice(lo, lo+c), V))
			if e.err != nil {
				return e.err
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

// rowRun is n consecutive rows from row r of a whole tensor, gathered at
// row j of a chunk.
type rowRun struct{ r, j, n int }

// runsOf splits the chunk's rows idx (ascending) into runs of
// consecutive rows, so that each run moves with one Copy.
func runsOf(idx []int) []rowRun {
	var runs []rowRun
	for j, r := range idx {
		if n := len(runs); n > 0 && runs[n-1].r+runs[n-1].n == r {
			runs[n-1].n++
			continue
		}
		runs = append(runs, rowRun{r: r, j: j, n: 1})
	}
	return runs
}

// headBackOp takes x, w, targets, the forward output and dy [N] and gives
// dx [N, C], adding dw to direct.Grad when direct is set. Only the rows
// with a target and a nonzero dy enter, gathered into chunks of rows:
// for each, the logits are recomputed, dlogits = dy·(onehot − softmax)·inv,
// dx = dlogits·w and dw += dlogitsᵀ·x; the other rows of dx are zero.
// Which rows enter is read on the host (targets and dy, N values each,
// downloaded on a device); the rows move with Copy. On a device the
// chunks add into the model's device gradient of direct
// (Model.GradTensor): the host's order of sums, and nothing comes back.
func headBackOp(be backend.Backend, fwd *kernel, g geometry, inv float32, rows int, sc *headScratch, direct *Param) *kernel {
	hb := &headBack{be: be, fwd: fwd, g: g, inv: inv, rows: rows, sc: sc, direct: direct}
	hb.k = &kernel{
		name: fmt.Sprintf("headBack(%d,%d,%d,%g,%t)", g.V, g.C, rows, inv, direct != nil), inDims: []int{2, 2, 1, 1, 1}, outDims: 2,
		shape: func(in []tensor.Shape) tensor.Shape { return in[0].Clone() },
	}
	hb.k.fwd = hb.run
	return hb.k
}

// headBack is the state of one headBackOp kernel k, the backward pass of
// the forward kernel fwd.
type headBack struct {
	be     backend.Backend
	k, fwd *kernel
	g      geometry
	inv    float32
	rows   int
	sc     *headScratch
	direct *Param
}

// run is the kernel's function: in are x, w, targets, the forward output
// and dy; out is dx.
func (hb *headBack) run(out backend.Tensor, in []backend.Tensor, _ []tensor.Shape) error {
	tg, err := download(hb.be, in[2])
	if err != nil {
		return err
	}
	dy, err := download(hb.be, in[4])
	if err != nil {
		return err
	}
	live, dead := splitRows(tg, dy)
	var e errs
	hb.zero(&e, out, dead)
	if e.err != nil || len(live) == 0 {
		return e.err
	}
	grad, err := hb.gradTarget(out)
	if err != nil {
		return err
	}
	for lo := 0; lo < len(live) && e.err == nil; lo += hb.rows {
		hb.chunk(&e, out, in[0], in[1], tg, dy, live[lo:min(lo+hb.rows, len(live))], grad)
	}
	return e.err
}

// splitRows returns the rows that carry a gradient (a target and a nonzero
// dy) and those that do not, each ascending.
func splitRows(tg, dy []float32) (live, dead []int) {
	for r, t := range tg {
		if t >= 0 && dy[r] != 0 {
			live = append(live, r)
		} else {
			dead = append(dead, r)
		}
	}
	return live, dead
}

// zero clears the rows dead of dx (out) from the scratch zeros, a chunk
// at most at a time; errors join e.
func (hb *headBack) zero(e *errs, out backend.Tensor, dead []int) {
	C := hb.g.C
	for _, run := range runsOf(dead) {
		for lo := 0; lo < run.n; lo += hb.rows {
			n := min(hb.rows, run.n-lo)
			e.add(hb.be.Copy(out.Slice((run.r+lo)*C, (run.r+lo+n)*C), hb.sc.zeros.Slice(0, n*C)))
		}
	}
}

// gradTarget returns where the chunks add dw: nothing when direct is nil,
// direct.Grad itself on a host backend, else the model's device gradient
// of direct. The error is that of allocating it.
func (hb *headBack) gradTarget(out backend.Tensor) (backend.Tensor, error) {
	if hb.direct == nil {
		return backend.Tensor{}, nil
	}
	if out.OnHost() {
		return backend.Host(hb.direct.Grad), nil
	}
	return hb.k.gm.w.grad(hb.direct)
}

// chunk computes the rows idx (ascending, at most hb.rows) of dx into out
// from x and w, and adds their dw into grad when direct is set; errors
// join e.
func (hb *headBack) chunk(e *errs, out, x, w backend.Tensor, tg, dy []float32, idx []int, grad backend.Tensor) {
	be, sc, V, C := hb.be, hb.sc, hb.g.V, hb.g.C
	c := len(idx)
	runs := runsOf(idx)
	for j, r := range idx {
		sc.tbH[j], sc.dbH[j] = tg[r], dy[r]
	}
	xb, dxb, lg, dl := sc.xb.Slice(0, c*C), sc.dxb.Slice(0, c*C), sc.logits.Slice(0, c*V), sc.dlogits.Slice(0, c*V)
	tb, db := sc.tb.Slice(0, c), sc.db.Slice(0, c)
	var sv backend.Tensor
	if hb.fwd.saved != nil {
		sv = sc.lb.Slice(0, c)
	}
	for _, run := range runs {
		e.add(be.Copy(xb.Slice(run.j*C, (run.j+run.n)*C), x.Slice(run.r*C, (run.r+run.n)*C)))
		if sv.Len() > 0 {
			e.add(be.Copy(sv.Slice(run.j, run.j+run.n), hb.fwd.savedT.Slice(run.r, run.r+run.n)))
		}
	}
	e.add(be.Upload(tb, sc.tbH[:c]))
	e.add(be.Upload(db, sc.dbH[:c]))
	e.add(be.MatMul(false, true, c, V, C, xb, w, 0, lg))
	e.add(scaleBy(be, lg, hb.inv))
	e.add(be.TokenLogProbBack(dl, lg, tb, sv, db, V))
	e.add(scaleBy(be, dl, hb.inv))
	e.add(be.MatMul(false, false, c, C, V, dl, w, 0, dxb))
	for _, run := range runs {
		e.add(be.Copy(out.Slice(run.r*C, (run.r+run.n)*C), dxb.Slice(run.j*C, (run.j+run.n)*C)))
	}
	if hb.direct != nil {
		e.add(be.MatMul(true, false, V, C, c, dl, xb, 1, grad))
	}
}
