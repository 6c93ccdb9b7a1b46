package policy

// The sampling path: decoding with a key/value cache, and the log-probs
// of whole sequences, computed by the model's backend on its own tensors
// (session.go holds the caches, weights.go the weights, block.go the
// decoder block). Shapes as in the package's legend (doc.go).

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// Step appends feed[i] (zero, one or several tokens) to sequence i and
// returns, for every i with a non-empty feed, the next-token logits [V]
// after its last fed token; rows with an empty feed are left as they are
// and get a nil row. Every fed token goes through products that compute
// each row on its own (rowsLinear), and attention over its own
// sequence, so that each sequence's logits are bit for bit those it gets
// decoded alone, whatever the other sequences are fed. Step returns an
// error, and appends nothing, when a sequence would exceed maxLen or
// max_position_embeddings tokens, and the backend's error when a kernel
// fails (the session's caches are then undefined: Reset the sequences
// fed); it panics (programmer errors) when
// len(feed) differs from the session's size or a token is outside
// [0, vocab_size).
func (s *Session) Step(feed [][]int) ([][]float32, error) {
	lay, err := s.layoutOf(feed, true)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(feed))
	if len(lay.spans) == 0 {
		return out, nil
	}
	logits, err := s.lastLogits(lay) // [S, V]
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	V := s.g.V
	for i, sp := range lay.spans {
		out[sp.seq] = logits[i*V : (i+1)*V : (i+1)*V]
	}
	return out, nil
}

// lastLogits runs the laid-out rows through the model and returns the
// logits after each span's last row, [S, V], on the host.
func (s *Session) lastLogits(lay layout) ([]float32, error) {
	logits, err := s.headLogits(lay) // [S, V]
	if err != nil {
		return nil, err
	}
	defer s.m.be.Free(logits)
	return download(s.m.be, logits)
}

// headLogits runs the laid-out rows through the model and returns the
// logits after each span's last row, [S, V], a backend tensor that the
// caller frees.
func (s *Session) headLogits(lay layout) (backend.Tensor, error) {
	x, err := s.forward(lay) // [N, C]
	if err != nil {
		return backend.Tensor{}, err
	}
	be, g, S := s.m.be, s.g, len(lay.spans)
	defer be.Free(x)
	last, err := be.Alloc(S * g.C) // [S, C]
	if err != nil {
		return backend.Tensor{}, err
	}
	defer be.Free(last)
	var e errs
	for i, sp := range lay.spans {
		r := sp.row + sp.n - 1
		e.add(be.Copy(last.Slice(i*g.C, (i+1)*g.C), x.Slice(r*g.C, (r+1)*g.C)))
	}
	norm, err := s.m.weight(s.m.Norm)
	e.add(err)
	head, err := s.m.weight(s.m.Head)
	e.add(err)
	if e.err != nil {
		return backend.Tensor{}, e.err
	}
	e.add(be.RMSNorm(last, last, norm, g.C, g.eps))
	logits, err := be.Alloc(S * g.V) // [S, V]
	if err != nil {
		return backend.Tensor{}, err
	}
	e.add(s.rowsLinear(logits, last, S, g.C, head, backend.Tensor{}, g.V))
	if e.err != nil {
		be.Free(logits)
		return backend.Tensor{}, e.err
	}
	return logits, nil
}

// download returns the values of t on the host: a host tensor's own
// storage (Download then copies nothing), else a copy.
func download(be backend.Backend, t backend.Tensor) ([]float32, error) {
	dst := t.Host()
	if !t.OnHost() || len(dst) != t.Len() {
		dst = make([]float32, t.Len())
	}
	if err := be.Download(dst, t); err != nil {
		return nil, err
	}
	return dst, nil
}

// span is the block of rows one sequence contributes to a forward call.
type span struct {
	seq int // sequence index
	row int // first row
	n   int // rows (tokens fed)
	p0  int // position of the first row
}

// layout places the fed tokens one per row and checks the contract.
type layout struct {
	tokens []int // [N]
	pos    []int // [N]
	spans  []span
	// rowwise: every row goes through a product that computes each row
	// on its own (rowsLinear), which keeps every sequence's numbers
	// independent of the others (Step); otherwise one product covers
	// all rows (LogProbs).
	rowwise bool
}

// layout lays out feed for one product per weight over all rows.
func (s *Session) layout(feed [][]int) (layout, error) { return s.layoutOf(feed, false) }

// layoutOf lays out feed, the sequences in order.
func (s *Session) layoutOf(feed [][]int, rowwise bool) (layout, error) {
	if len(feed) != len(s.lens) {
		panic(fmt.Sprintf("policy: Step got %d feeds for a session of %d sequences", len(feed), len(s.lens)))
	}
	for i, f := range feed {
		if n := s.lens[i] + len(f); n > s.limit {
			return layout{}, fmt.Errorf("policy: sequence %d would hold %d tokens, over its limit %d (maxLen %d, max_position_embeddings %d)",
				i, n, s.limit, s.maxLen, s.m.Config.MaxPositionEmbeddings)
		}
		for j, tok := range f {
			if tok < 0 || tok >= s.g.V {
				panic(fmt.Sprintf("policy: token %d of sequence %d is %d, outside the vocabulary [0, %d)", j, i, tok, s.g.V))
			}
		}
	}
	lay := layout{rowwise: rowwise}
	place := func(i int) {
		f := feed[i]
		p0 := s.lens[i]
		lay.spans = append(lay.spans, span{seq: i, row: len(lay.tokens), n: len(f), p0: p0})
		for j, tok := range f {
			lay.tokens = append(lay.tokens, tok)
			lay.pos = append(lay.pos, p0+j)
		}
		s.lens[i] += len(f)
	}
	for i, f := range feed {
		if len(f) > 0 {
			place(i)
		}
	}
	return lay, nil
}

// forward runs the decoder blocks over the laid-out rows, extending the
// caches, and returns the last hidden state x [N, C] (before the final
// norm), a backend tensor that the caller frees.
func (s *Session) forward(lay layout) (x backend.Tensor, err error) {
	be, g, N := s.m.be, s.g, len(lay.tokens)
	if err := s.tables(); err != nil {
		return backend.Tensor{}, err
	}
	embed, err := s.m.weight(s.m.Embed)
	if err != nil {
		return backend.Tensor{}, err
	}
	if x, err = be.Alloc(N * g.C); err != nil {
		return backend.Tensor{}, err
	}
	defer func() {
		if err != nil {
			be.Free(x)
			x = backend.Tensor{}
		}
	}()
	ids, err := be.Mirror(tokenIDs(lay.tokens)) // [N]
	if err != nil {
		return x, err
	}
	err = be.Embed(x, embed, ids, g.C)
	be.Free(ids)
	if err != nil {
		return x, err
	}
	b, err := newBuffers(s.m, N, lay.rowwise)
	defer b.free(be)
	if err != nil {
		return x, err
	}
	mode := &stepMode{s: s, lay: lay, acc: b.acc}
	v := b.values(x)
	for l, L := range s.m.Layers {
		bk := &block{be: be, g: g, L: L, l: l, N: N, lora: s.m.lora, mode: mode, v: v}
		if err = bk.forward(x, x); err != nil {
			return x, fmt.Errorf("layer %d: %w", l, err)
		}
	}
	return x, nil
}

// buffers is the scratch of one forward call, in backend tensors.
type buffers struct {
	h, q, k, v, o backend.Tensor // [N, C], [N, H·D], [N, K·D], [N, K·D], [N, H·D]
	gate, up      backend.Tensor // [N, F]
	acc           backend.Tensor // [N, C]: products to add, for a rowwise layout
	u             backend.Tensor // [N, r]: an adapter's product, with adapters
}

// newBuffers allocates the scratch of N rows for m; on an error the
// buffers allocated so far are returned too, for free.
func newBuffers(m *Model, N int, rowwise bool) (*buffers, error) {
	g, b := geometryOf(m.Config), &buffers{}
	HD, KD := g.H*g.D, g.K*g.D
	sizes := []sized{{&b.h, N * g.C}, {&b.q, N * HD}, {&b.k, N * KD}, {&b.v, N * KD}, {&b.o, N * HD}, {&b.gate, N * g.F}, {&b.up, N * g.F}}
	if rowwise {
		sizes = append(sizes, sized{&b.acc, N * g.C})
	}
	if m.lora != nil {
		sizes = append(sizes, sized{&b.u, N * m.lora.Config.Rank})
	}
	for _, sz := range sizes {
		t, err := m.be.Alloc(sz.n)
		if err != nil {
			return b, err
		}
		*sz.t = t
	}
	return b, nil
}

func (b *buffers) free(be backend.Backend) {
	for _, t := range []backend.Tensor{b.h, b.q, b.k, b.v, b.o, b.gate, b.up, b.acc, b.u} {
		be.Free(t)
	}
}

// values are the block's values over the buffers, in place in x: h1 and
// h2 share a buffer, as do the gate and its activation, and every
// adapter's product; nothing is saved.
func (b *buffers) values(x backend.Tensor) *blockValues {
	v := &blockValues{h1: b.h, q: b.q, k: b.k, v: b.v, a: b.o, x2: x, h2: b.h, gt: b.gate, up: b.up, act: b.gate}
	for t := range v.u {
		v.u[t] = b.u
	}
	return v
}

// stepMode runs a block over the rows of a layout: products as the
// layout asks (rowwise or not), attention over each sequence's caches,
// which it first extends with the rows' keys and values.
type stepMode struct {
	s   *Session
	lay layout
	acc backend.Tensor // [N, C] for a rowwise layout's residual products
}

// weight fetches p right before the product that reads it: a frozen
// weight is widened into a scratch the next fetch reuses.
func (m *stepMode) weight(p *Param) (backend.Tensor, error) { return m.s.weight(p) }

func (m *stepMode) linear(y, x backend.Tensor, in int, w, bias backend.Tensor, out int) error {
	return m.s.product(y, x, m.lay, in, w, bias, out)
}

// residual adds into x in place (y is x): the base product, then the
// adapter's term.
func (m *stepMode) residual(bk *block, t loraTarget, y, _, a backend.Tensor, w *Param, in int) error {
	W, err := m.s.weight(w)
	if err != nil {
		return err
	}
	if err := m.s.addProduct(y, a, m.lay, in, W, bk.g.C, m.acc); err != nil {
		return err
	}
	return bk.adapt(t, y, a, in, bk.g.C)
}

// attend appends each span's rotated keys and values to its sequence's
// layer caches, then attends over them.
// attendBack is not part of decoding, which has no backward pass.
func (m *stepMode) attendBack(*block) error {
	return fmt.Errorf("policy: decoding has no backward pass")
}

func (m *stepMode) attend(bk *block) error {
	s, v, KD := m.s, bk.v, bk.g.K*bk.g.D
	spans := make([]backend.Span, len(m.lay.spans))
	keys := make([]backend.Tensor, len(m.lay.spans))
	vals := make([]backend.Tensor, len(m.lay.spans))
	for i, sp := range m.lay.spans {
		lo, hi := sp.row*KD, (sp.row+sp.n)*KD
		if err := s.cache(bk.l, sp.seq, sp.p0, v.k.Slice(lo, hi), v.v.Slice(lo, hi)); err != nil {
			return err
		}
		spans[i] = backend.Span{Row: sp.row, N: sp.n, P0: sp.p0}
		keys[i], vals[i] = s.held(bk.l, sp.seq, sp.p0+sp.n)
	}
	return s.m.be.AttendCached(v.a, v.q, keys, vals, spans, s.g.heads())
}

func (m *stepMode) rope() ([]int, backend.Tensor, backend.Tensor) { return m.lay.pos, m.s.cos, m.s.sin }

// logProbChunk bounds the tokens of one forward call in LogProbs, which
// bounds its memory.
const logProbChunk = 8192

// LogProbs returns, for each sequence, out[i][0] = 0 and
// out[i][t] = log p(seqs[i][t] | seqs[i][:t]) for t ≥ 1, computed by the
// model's backend. Sequences may have different lengths; they are run
// together (one matrix product per weight, attention in parallel over
// sequences and heads) in groups of at most about 8192 tokens. It returns
// the backend's error when a kernel fails. It panics (programmer errors)
// on a token outside the vocabulary or a sequence longer than
// max_position_embeddings.
func (m *Model) LogProbs(seqs [][]int) ([][]float32, error) {
	out := make([][]float32, len(seqs))
	for lo := 0; lo < len(seqs); {
		hi, tokens, longest := lo, 0, 1
		for hi < len(seqs) && (hi == lo || tokens+len(seqs[hi]) <= logProbChunk) {
			tokens += len(seqs[hi])
			longest = max(longest, len(seqs[hi]))
			hi++
		}
		if longest > m.Config.MaxPositionEmbeddings {
			panic(fmt.Sprintf("policy: LogProbs got a sequence of %d tokens, over max_position_embeddings %d", longest, m.Config.MaxPositionEmbeddings))
		}
		if err := m.logProbGroup(out[lo:hi], seqs[lo:hi], longest); err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		lo = hi
	}
	return out, nil
}

// logProbGroup fills out with the log-probs of seqs, run in one forward
// call of a session of their own.
func (m *Model) logProbGroup(out [][]float32, seqs [][]int, longest int) error {
	s := m.NewSession(len(seqs), longest)
	defer s.Close()
	lay, err := s.layout(seqs)
	if err != nil {
		panic(err) // the lengths were checked by the caller
	}
	x, err := s.forward(lay)
	if err != nil {
		return err
	}
	defer m.be.Free(x)
	return m.scoreRows(out, seqs, x, lay)
}

// scoreRows fills out from the hidden states x [N, C] of the laid-out
// sequences: the logits of row t score token t+1. Rows go chunk at a
// time through the final norm, the head and the log-softmax, and only
// the log-probs come back to the host.
func (m *Model) scoreRows(out [][]float32, seqs [][]int, x backend.Tensor, lay layout) error {
	g, be := geometryOf(m.Config), m.be
	for i, sq := range seqs {
		out[i] = make([]float32, len(sq))
	}
	type target struct{ row, seq, t int }
	var targets []target
	for _, sp := range lay.spans {
		for t := 0; t+1 < sp.n; t++ {
			targets = append(targets, target{sp.row + t, sp.seq, t + 1})
		}
	}
	const chunk = 512
	sc, err := newScoreScratch(be, g, min(chunk, len(targets)))
	defer sc.free(be)
	if err != nil {
		return err
	}
	norm, err := m.weight(m.Norm)
	if err != nil {
		return err
	}
	head, err := m.weight(m.Head)
	if err != nil {
		return err
	}
	ids := make([]float32, chunk) // [chunk] the scored tokens
	lp := make([]float32, chunk)  // [chunk] their log-probs
	for lo := 0; lo < len(targets); lo += chunk {
		part := targets[lo:min(lo+chunk, len(targets))]
		n := len(part)
		var e errs
		for i, tg := range part {
			e.add(be.Copy(sc.h.Slice(i*g.C, (i+1)*g.C), x.Slice(tg.row*g.C, (tg.row+1)*g.C)))
			ids[i] = float32(seqs[tg.seq][tg.t])
		}
		h, logits, tids, tlp := sc.h.Slice(0, n*g.C), sc.logits.Slice(0, n*g.V), sc.ids.Slice(0, n), sc.lp.Slice(0, n)
		e.add(be.Upload(tids, ids[:n]))
		e.add(be.RMSNorm(h, h, norm, g.C, g.eps))
		e.add(linear(be, logits, h, n, g.C, head, backend.Tensor{}, g.V))
		if inv := m.invTemp(); inv != 1 {
			e.add(be.Scale(logits, inv))
		}
		e.add(be.TokenLogProb(tlp, backend.Tensor{}, logits, tids, g.V))
		e.add(be.Download(lp[:n], tlp))
		if e.err != nil {
			return e.err
		}
		for i, tg := range part {
			out[tg.seq][tg.t] = lp[i]
		}
	}
	return nil
}

// scoreScratch is scoreRows' backend tensors for R rows.
type scoreScratch struct {
	h, logits, ids, lp backend.Tensor // [R, C], [R, V], [R], [R]
}

// newScoreScratch allocates it; on an error the tensors allocated so far
// are returned too, for free.
func newScoreScratch(be backend.Backend, g geometry, R int) (*scoreScratch, error) {
	sc := &scoreScratch{}
	for _, sz := range []struct {
		t *backend.Tensor
		n int
	}{{&sc.h, R * g.C}, {&sc.logits, R * g.V}, {&sc.ids, R}, {&sc.lp, R}} {
		t, err := be.Alloc(sz.n)
		if err != nil {
			return sc, err
		}
		*sz.t = t
	}
	return sc, nil
}

func (sc *scoreScratch) free(be backend.Backend) {
	for _, t := range []backend.Tensor{sc.h, sc.logits, sc.ids, sc.lp} {
		be.Free(t)
	}
}
