package policy

// The sampling path: decoding with a key/value cache, and the log-probs
// of whole sequences, computed by the model's backend on its own tensors
// (session.go holds the caches, weights.go the weights).
//
// Shape legend: N rows (the tokens fed in one call, all sequences laid
// end to end), S fed sequences, C channels, H query heads, K key/value
// heads, D head dim, F MLP width, V vocab, P positions held by a sequence.

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
	x, err := s.forward(lay) // [N, C]
	if err != nil {
		return nil, err
	}
	be, g, S := s.m.be, s.g, len(lay.spans)
	defer be.Free(x)
	last, err := be.Alloc(S * g.C) // [S, C]
	if err != nil {
		return nil, err
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
		return nil, e.err
	}
	e.add(be.RMSNorm(last, last, norm, g.C, g.eps))
	logits, err := be.Alloc(S * g.V) // [S, V]
	if err != nil {
		return nil, err
	}
	defer be.Free(logits)
	e.add(s.rowsLinear(logits, last, S, g.C, head, backend.Tensor{}, g.V))
	if e.err != nil {
		return nil, e.err
	}
	return download(be, logits)
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
	b, err := newBuffers(be, g, N, lay.rowwise)
	defer b.free(be)
	if err != nil {
		return x, err
	}
	for l := range s.m.Layers {
		if err = s.block(l, x, lay, b); err != nil {
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
}

// newBuffers allocates the scratch of N rows; on an error the buffers
// allocated so far are returned too, for free.
func newBuffers(be backend.Backend, g geometry, N int, rowwise bool) (*buffers, error) {
	HD, KD := g.H*g.D, g.K*g.D
	b := &buffers{}
	sizes := []struct {
		t *backend.Tensor
		n int
	}{{&b.h, N * g.C}, {&b.q, N * HD}, {&b.k, N * KD}, {&b.v, N * KD}, {&b.o, N * HD}, {&b.gate, N * g.F}, {&b.up, N * g.F}}
	if rowwise {
		sizes = append(sizes, struct {
			t *backend.Tensor
			n int
		}{&b.acc, N * g.C})
	}
	for _, sz := range sizes {
		t, err := be.Alloc(sz.n)
		if err != nil {
			return b, err
		}
		*sz.t = t
	}
	return b, nil
}

func (b *buffers) free(be backend.Backend) {
	for _, t := range []backend.Tensor{b.h, b.q, b.k, b.v, b.o, b.gate, b.up, b.acc} {
		be.Free(t)
	}
}

// block applies decoder layer l to x [N, C] in place.
func (s *Session) block(l int, x backend.Tensor, lay layout, b *buffers) error {
	g, L, be := s.g, s.m.Layers[l], s.m.be
	N, HD, KD := len(lay.tokens), g.H*g.D, g.K*g.D
	var e errs
	// w is p's tensor, fetched right before the product that reads it: a
	// frozen weight is widened into a scratch the next fetch reuses.
	w := func(p *Param) backend.Tensor {
		t, err := s.weight(p)
		e.add(err)
		return t
	}
	e.add(be.RMSNorm(b.h, x, w(L.AttnNorm), g.C, g.eps))
	e.add(s.product(b.q, b.h, lay, g.C, w(L.Q), w(L.QB), HD))
	e.add(s.product(b.k, b.h, lay, g.C, w(L.K), w(L.KB), KD))
	e.add(s.product(b.v, b.h, lay, g.C, w(L.V), w(L.VB), KD))
	e.add(s.m.adapt(l, targetQ, b.q, b.h, N)) // LoRA adapters, when attached
	e.add(s.m.adapt(l, targetK, b.k, b.h, N))
	e.add(s.m.adapt(l, targetV, b.v, b.h, N))
	e.add(be.Rope(b.q, b.q, g.H, g.D, lay.pos, s.cos, s.sin, false))
	e.add(be.Rope(b.k, b.k, g.K, g.D, lay.pos, s.cos, s.sin, false))
	for _, sp := range lay.spans {
		e.add(s.cache(l, sp.seq, sp.p0, b.k.Slice(sp.row*KD, (sp.row+sp.n)*KD), b.v.Slice(sp.row*KD, (sp.row+sp.n)*KD)))
	}
	if e.err != nil {
		return e.err // attention reads the caches
	}
	e.add(s.attend(l, b, lay))
	e.add(s.addProduct(x, b.o, lay, HD, w(L.O), g.C, b.acc)) // x += o·Oᵀ
	e.add(s.m.adapt(l, targetO, x, b.o, N))
	e.add(be.RMSNorm(b.h, x, w(L.MLPNorm), g.C, g.eps))
	e.add(s.product(b.gate, b.h, lay, g.C, w(L.Gate), backend.Tensor{}, g.F))
	e.add(s.product(b.up, b.h, lay, g.C, w(L.Up), backend.Tensor{}, g.F))
	e.add(s.m.adapt(l, targetGate, b.gate, b.h, N))
	e.add(s.m.adapt(l, targetUp, b.up, b.h, N))
	e.add(be.SwiGLU(b.gate, backend.Tensor{}, b.gate, b.up))
	e.add(s.addProduct(x, b.gate, lay, g.F, w(L.Down), g.C, b.acc)) // x += act·Downᵀ
	e.add(s.m.adapt(l, targetDown, x, b.gate, N))
	return e.err
}

// attend fills b.o with causal attention of every fed row over its
// sequence's cache.
func (s *Session) attend(l int, b *buffers, lay layout) error {
	spans := make([]backend.Span, len(lay.spans))
	keys := make([]backend.Tensor, len(lay.spans))
	vals := make([]backend.Tensor, len(lay.spans))
	for i, sp := range lay.spans {
		spans[i] = backend.Span{Row: sp.row, N: sp.n, P0: sp.p0}
		keys[i], vals[i] = s.held(l, sp.seq, sp.p0+sp.n)
	}
	return s.m.be.AttendCached(b.o, b.q, keys, vals, spans, s.g.heads())
}

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
