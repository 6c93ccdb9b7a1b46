package policy

// The sampling path: plain Go with a key/value cache.
//
// Shape legend: N rows (the tokens fed in one call, all sequences laid
// end to end), S fed sequences, C channels, H query heads, K key/value
// heads, D head dim, F MLP width, V vocab, P positions held by a sequence.

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// Session is a batch of sequences decoded together. It caches the rotated
// keys and values of every token it has been fed, so each Step only
// computes the new tokens. A Session reads the weights from Param.Data on
// every Step, so it sees in-place updates made between Steps; it must not
// be used while the weights are being written, and one Session must not be
// used by several goroutines at once (distinct Sessions may run
// concurrently).
type Session struct {
	m      *Model
	g      geometry
	limit  int           // most tokens a sequence may hold: min(maxLen, max_position_embeddings)
	maxLen int           // as asked by the caller, for messages
	lens   []int         // tokens held by each sequence
	keys   [][][]float32 // [layer][sequence] → [P, K·D], rotated
	vals   [][][]float32 // [layer][sequence] → [P, K·D]
	cos    []float32     // [limit, D/2]
	sin    []float32     // [limit, D/2]
	wide   widener       // float32 weights of bfloat16-frozen params, one matrix at a time
}

// NewSession starts n empty sequences, each with room for maxLen tokens.
// It panics when n < 0 or maxLen < 1 (programmer errors).
func (m *Model) NewSession(n, maxLen int) *Session {
	if n < 0 || maxLen < 1 {
		panic(fmt.Sprintf("policy: NewSession(%d, %d): need n ≥ 0 and maxLen ≥ 1", n, maxLen))
	}
	limit := min(maxLen, m.Config.MaxPositionEmbeddings)
	s := &Session{
		m: m, g: geometryOf(m.Config), limit: limit, maxLen: maxLen,
		lens: make([]int, n),
		keys: make([][][]float32, len(m.Layers)),
		vals: make([][][]float32, len(m.Layers)),
	}
	for l := range s.keys {
		s.keys[l] = make([][]float32, n)
		s.vals[l] = make([][]float32, n)
	}
	s.cos, s.sin = ropeTables(limit, s.g.D, m.Config.RopeTheta)
	return s
}

// Context is the most tokens one sequence may hold: max_position_embeddings.
func (m *Model) Context() int { return m.Config.MaxPositionEmbeddings }

// Len returns the number of tokens sequence i holds.
func (s *Session) Len(i int) int { return s.lens[i] }

// Size is the number of sequences.
func (s *Session) Size() int { return len(s.lens) }

// Add appends an empty sequence and returns its index: a server adds
// requests to a batch already decoding.
func (s *Session) Add() int {
	s.lens = append(s.lens, 0)
	for l := range s.keys {
		s.keys[l] = append(s.keys[l], nil)
		s.vals[l] = append(s.vals[l], nil)
	}
	return len(s.lens) - 1
}

// Reset empties sequence i and drops its cache, so that a new sequence
// can take its place while the others go on.
func (s *Session) Reset(i int) {
	s.lens[i] = 0
	for l := range s.keys {
		s.keys[l][i], s.vals[l][i] = nil, nil
	}
}

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
	x, err := s.forward(lay) // [N, C]
	if err != nil {
		return nil, err
	}
	g := s.g
	last := make([]float32, len(lay.spans)*g.C) // [S, C]
	for i, sp := range lay.spans {
		r := sp.row + sp.n - 1
		copy(last[i*g.C:(i+1)*g.C], x[r*g.C:(r+1)*g.C])
	}
	be := s.m.be
	if err := be.RMSNorm(host(last), host(last), host(s.m.Norm.Data), g.C, g.eps); err != nil {
		return nil, err
	}
	logits := make([]float32, len(lay.spans)*g.V) // [S, V]
	if err := s.rowsLinear(logits, last, len(lay.spans), g.C, s.m.Head.Data, nil, g.V); err != nil {
		return nil, err
	}
	for i, sp := range lay.spans {
		out[sp.seq] = logits[i*g.V : (i+1)*g.V : (i+1)*g.V]
	}
	return out, nil
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
// caches, and returns the last hidden state x [N, C] (before the final norm).
func (s *Session) forward(lay layout) ([]float32, error) {
	g := s.g
	N := len(lay.tokens)
	x := make([]float32, N*g.C)
	if err := s.m.be.Embed(host(x), host(s.m.Embed.Data), host(tokenIDs(lay.tokens)), g.C); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	b := newBuffers(g, N, lay.rowwise)
	for l := range s.m.Layers {
		if err := s.block(l, x, lay, b); err != nil {
			return nil, fmt.Errorf("policy: layer %d: %w", l, err)
		}
	}
	return x, nil
}

// buffers is the scratch of one forward call.
type buffers struct {
	h, q, k, v, o []float32 // [N, C], [N, H·D], [N, K·D], [N, K·D], [N, H·D]
	gate, up      []float32 // [N, F]
	acc           []float32 // [N, C]: products to add, for a rowwise layout
}

func newBuffers(g geometry, N int, rowwise bool) *buffers {
	HD, KD := g.H*g.D, g.K*g.D
	b := &buffers{
		h: make([]float32, N*g.C), q: make([]float32, N*HD),
		k: make([]float32, N*KD), v: make([]float32, N*KD), o: make([]float32, N*HD),
		gate: make([]float32, N*g.F), up: make([]float32, N*g.F),
	}
	if rowwise {
		b.acc = make([]float32, N*g.C)
	}
	return b
}

// block applies decoder layer l to x [N, C] in place.
func (s *Session) block(l int, x []float32, lay layout, b *buffers) error {
	g, L, be := s.g, s.m.Layers[l], s.m.be
	N, HD, KD := len(lay.tokens), g.H*g.D, g.K*g.D
	var e errs
	e.add(be.RMSNorm(host(b.h), host(x), host(L.AttnNorm.Data), g.C, g.eps))
	e.add(s.product(b.q, b.h, lay, g.C, s.wide.weights(L.Q), L.QB.Data, HD))
	e.add(s.product(b.k, b.h, lay, g.C, s.wide.weights(L.K), L.KB.Data, KD))
	e.add(s.product(b.v, b.h, lay, g.C, s.wide.weights(L.V), L.VB.Data, KD))
	e.add(s.m.adapt(l, targetQ, b.q, b.h, N)) // LoRA adapters, when attached
	e.add(s.m.adapt(l, targetK, b.k, b.h, N))
	e.add(s.m.adapt(l, targetV, b.v, b.h, N))
	e.add(be.Rope(host(b.q), host(b.q), g.H, g.D, lay.pos, host(s.cos), host(s.sin), false))
	e.add(be.Rope(host(b.k), host(b.k), g.K, g.D, lay.pos, host(s.cos), host(s.sin), false))
	for _, sp := range lay.spans {
		s.keys[l][sp.seq] = append(s.keys[l][sp.seq], b.k[sp.row*KD:(sp.row+sp.n)*KD]...)
		s.vals[l][sp.seq] = append(s.vals[l][sp.seq], b.v[sp.row*KD:(sp.row+sp.n)*KD]...)
	}
	e.add(s.attend(l, b, lay))
	e.add(s.addProduct(x, b.o, lay, HD, s.wide.weights(L.O), g.C, b.acc)) // x += o·Oᵀ
	e.add(s.m.adapt(l, targetO, x, b.o, N))
	e.add(be.RMSNorm(host(b.h), host(x), host(L.MLPNorm.Data), g.C, g.eps))
	e.add(s.product(b.gate, b.h, lay, g.C, s.wide.weights(L.Gate), nil, g.F))
	e.add(s.product(b.up, b.h, lay, g.C, s.wide.weights(L.Up), nil, g.F))
	e.add(s.m.adapt(l, targetGate, b.gate, b.h, N))
	e.add(s.m.adapt(l, targetUp, b.up, b.h, N))
	e.add(be.SwiGLU(host(b.gate), backend.Tensor{}, host(b.gate), host(b.up)))
	e.add(s.addProduct(x, b.gate, lay, g.F, s.wide.weights(L.Down), g.C, b.acc)) // x += act·Downᵀ
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
		keys[i], vals[i] = host(s.keys[l][sp.seq]), host(s.vals[l][sp.seq])
	}
	return s.m.be.AttendCached(host(b.o), host(b.q), keys, vals, spans, s.g.heads())
}

// logProbChunk bounds the tokens of one plain-Go forward in LogProbs, which
// bounds its memory.
const logProbChunk = 8192

// LogProbs returns, for each sequence, out[i][0] = 0 and
// out[i][t] = log p(seqs[i][t] | seqs[i][:t]) for t ≥ 1, computed in plain
// Go. Sequences may have different lengths; they are run together (one
// matrix product per weight, attention in parallel over sequences and
// heads) in groups of at most about 8192 tokens. It returns the
// backend's error when a kernel fails. It panics (programmer errors) on a
// token outside the vocabulary or a sequence longer than
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
		s := m.NewSession(hi-lo, longest)
		lay, err := s.layout(seqs[lo:hi])
		if err != nil {
			panic(err) // the lengths were checked above
		}
		x, err := s.forward(lay)
		if err != nil {
			return nil, err
		}
		if err := m.scoreRows(out[lo:hi], seqs[lo:hi], x, lay); err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		lo = hi
	}
	return out, nil
}

// scoreRows fills out from the hidden states x [N, C] of the laid-out
// sequences: the logits of row t score token t+1.
func (m *Model) scoreRows(out [][]float32, seqs [][]int, x []float32, lay layout) error {
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
	h := make([]float32, chunk*g.C)      // [chunk, C]
	logits := make([]float32, chunk*g.V) // [chunk, V]
	ids := make([]float32, chunk)        // [chunk] the scored tokens
	lp := make([]float32, chunk)         // [chunk] their log-probs
	for lo := 0; lo < len(targets); lo += chunk {
		part := targets[lo:min(lo+chunk, len(targets))]
		n := len(part)
		for i, tg := range part {
			copy(h[i*g.C:(i+1)*g.C], x[tg.row*g.C:(tg.row+1)*g.C])
			ids[i] = float32(seqs[tg.seq][tg.t])
		}
		if err := be.RMSNorm(host(h[:n*g.C]), host(h[:n*g.C]), host(m.Norm.Data), g.C, g.eps); err != nil {
			return err
		}
		if err := linear(be, logits, h, n, g.C, m.Head.Data, nil, g.V); err != nil {
			return err
		}
		scaleLogits(logits[:n*g.V], m.invTemp())
		if err := be.TokenLogProb(host(lp[:n]), backend.Tensor{}, host(logits[:n*g.V]), host(ids[:n]), g.V); err != nil {
			return err
		}
		for i, tg := range part {
			out[tg.seq][tg.t] = lp[i]
		}
	}
	return nil
}
