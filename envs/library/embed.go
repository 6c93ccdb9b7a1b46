package library

import (
	"fmt"
	"math"
	"sync"
)

// Embedder maps a text to a vector. Embed must be deterministic (the
// same text always gives the same vector), give vectors of one length
// for every text, and be safe for concurrent use. A zero vector (an
// empty text, say) is similar to nothing.
type Embedder interface {
	Embed(text string) []float32
}

// SelectMode names how an Index scores demonstrations against a task.
type SelectMode string

// The selection modes.
const (
	SelectBM25  SelectMode = "bm25"  // BM25 over words (NewIndex); the default
	SelectEmbed SelectMode = "embed" // cosine similarity of embeddings (NewEmbedIndex)
)

// ParseSelectMode reads a selection mode; empty is SelectBM25.
func ParseSelectMode(s string) (SelectMode, error) {
	switch SelectMode(s) {
	case "", SelectBM25:
		return SelectBM25, nil
	case SelectEmbed:
		return SelectEmbed, nil
	}
	return "", fmt.Errorf("library: selection mode %q: want bm25 or embed", s)
}

// NewEmbedIndex indexes lib for selection by embeddings: Select scores
// each demonstration by the cosine similarity between e's embedding of
// the task text and e's embedding of the demonstration's description and
// input (joined as NewIndex joins them, with a space). The
// demonstrations are embedded once, on the first Select, and kept; the
// task text is embedded on every Select. The order is the package doc's,
// with "similar" meaning a positive cosine; equal scores keep file order.
func NewEmbedIndex(lib *Library, e Embedder) *Index {
	ix := NewIndex(lib)
	ix.emb = &embedScores{e: e}
	return ix
}

// Reembed makes an embedding index embed its demonstrations again at the
// next Select, for an Embedder whose model has changed (a policy between
// training steps). It is a no-op for a BM25 index. It must not run
// concurrently with Select.
func (ix *Index) Reembed() {
	if ix.emb != nil {
		ix.emb = &embedScores{e: ix.emb.e}
	}
}

// embedScores holds an Embedder and the demonstrations' embeddings,
// computed once.
type embedScores struct {
	e     Embedder
	once  sync.Once
	demos [][]float32 // [demonstration] → its embedding
}

// scorer returns the cosine similarity of demonstration i to text.
func (s *embedScores) scorer(lib *Library, text string) func(i int) float64 {
	s.once.Do(func() {
		s.demos = make([][]float32, len(lib.Demos))
		for i, d := range lib.Demos {
			s.demos[i] = s.e.Embed(d.Description + " " + d.Input)
		}
	})
	q := s.e.Embed(text)
	return func(i int) float64 { return Cosine(q, s.demos[i]) }
}

// Cosine is the cosine similarity of a and b, accumulated in float64; it
// is 0 when either is a zero vector. It panics when the lengths differ
// (an Embedder that breaks its contract).
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("library: embeddings of lengths %d and %d", len(a), len(b)))
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
