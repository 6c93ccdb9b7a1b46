package policy

// A Session's state: which sequences it holds and their key/value caches,
// which live in the backend's memory. Shapes as in the package's legend
// (doc.go).

import (
	"fmt"

	"github.com/artist-rl/artist/policy/backend"
)

// Session is a batch of sequences decoded together. It caches the rotated
// keys and values of every token it has been fed, in backend tensors, so
// each Step only computes the new tokens. It computes with the model's
// backend tensors of the weights (Model.SyncWeights): on a host backend
// these are Param.Data itself, so a Session sees in-place updates made
// between Steps; on a device backend it sees them after SyncWeights. It
// must not be used while the weights are being written, and one Session
// must not be used by several goroutines at once (distinct Sessions may
// run concurrently). Close releases its backend memory, which a device
// backend needs; on a host backend the garbage collector frees it.
type Session struct {
	m        *Model
	g        geometry
	limit    int                // most tokens a sequence may hold: min(maxLen, max_position_embeddings)
	maxLen   int                // as asked by the caller, for messages
	lens     []int              // tokens held by each sequence
	keys     [][]backend.Tensor // [layer][sequence] → [capacity, K·D]; rows [0, lens) hold the rotated keys
	vals     [][]backend.Tensor // [layer][sequence] → [capacity, K·D]
	cosH     []float32          // [limit, D/2] on the host
	sinH     []float32          // [limit, D/2] on the host
	cos, sin backend.Tensor     // the tables as the backend holds them, from the first forward call on
	fz       frozenReader       // the float32 weights of bfloat16-frozen params, one matrix at a time
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
		keys: make([][]backend.Tensor, len(m.Layers)),
		vals: make([][]backend.Tensor, len(m.Layers)),
	}
	for l := range s.keys {
		s.keys[l] = make([]backend.Tensor, n)
		s.vals[l] = make([]backend.Tensor, n)
	}
	s.cosH, s.sinH = ropeTables(limit, s.g.D, m.Config.RopeTheta)
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
		s.keys[l] = append(s.keys[l], backend.Tensor{})
		s.vals[l] = append(s.vals[l], backend.Tensor{})
	}
	return len(s.lens) - 1
}

// Reset empties sequence i and drops its cache, so that a new sequence
// can take its place while the others go on.
func (s *Session) Reset(i int) {
	s.lens[i] = 0
	for l := range s.keys {
		s.m.be.Free(s.keys[l][i])
		s.m.be.Free(s.vals[l][i])
		s.keys[l][i], s.vals[l][i] = backend.Tensor{}, backend.Tensor{}
	}
}

// Close empties every sequence and releases the session's backend
// memory. The session may be used again after (it then holds nothing).
func (s *Session) Close() {
	for i := range s.lens {
		s.Reset(i)
	}
	s.m.be.Free(s.cos)
	s.m.be.Free(s.sin)
	s.fz.free(s.m.be)
	s.cos, s.sin = backend.Tensor{}, backend.Tensor{}
}

// weight returns p's backend tensor for the next product: the model's
// (Model.SyncWeights), or for a weight frozen in bfloat16 its float32
// values in the session's scratch (frozenReader), valid until the next
// call.
func (s *Session) weight(p *Param) (backend.Tensor, error) {
	if p == nil || !p.Frozen16() {
		return s.m.weight(p)
	}
	return s.fz.weight(s.m, p)
}

// tables mirrors the rotary tables into the backend on first use.
func (s *Session) tables() error {
	if s.cos.Len() > 0 || len(s.cosH) == 0 {
		return nil
	}
	cos, err := s.m.be.Mirror(s.cosH)
	if err != nil {
		return err
	}
	sin, err := s.m.be.Mirror(s.sinH)
	if err != nil {
		s.m.be.Free(cos)
		return err
	}
	s.cos, s.sin = cos, sin
	return nil
}

// minCacheRows is the least capacity of a sequence's cache.
const minCacheRows = 16

// cache appends the key and value rows k and v [n, K·D] of sequence i,
// which held p0 tokens, to its layer-l caches, growing them first when
// they are full: the capacity doubles up to the session's limit, so a
// sequence's rows are copied O(log P) times in all.
func (s *Session) cache(l, i, p0 int, k, v backend.Tensor) error {
	KD := s.g.K * s.g.D
	n := k.Len() / KD
	for _, c := range [][]backend.Tensor{s.keys[l], s.vals[l]} {
		if c[i].Len() >= (p0+n)*KD {
			continue
		}
		rows := min(s.limit, max(p0+n, 2*c[i].Len()/KD, minCacheRows))
		t, err := s.m.be.Alloc(rows * KD)
		if err != nil {
			return err
		}
		if p0 > 0 {
			if err := s.m.be.Copy(t.Slice(0, p0*KD), c[i].Slice(0, p0*KD)); err != nil {
				s.m.be.Free(t)
				return err
			}
		}
		s.m.be.Free(c[i])
		c[i] = t
	}
	if err := s.m.be.Copy(s.keys[l][i].Slice(p0*KD, (p0+n)*KD), k); err != nil {
		return err
	}
	return s.m.be.Copy(s.vals[l][i].Slice(p0*KD, (p0+n)*KD), v)
}

// held is the layer-l cache of sequence i's first P tokens, [P, K·D].
func (s *Session) held(l, i, P int) (keys, vals backend.Tensor) {
	KD := s.g.K * s.g.D
	return s.keys[l][i].Slice(0, P*KD), s.vals[l][i].Slice(0, P*KD)
}
