package library

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// Embedder maps a text to a vector. Embed must be deterministic (the
// same text always gives the same vector), give vectors of one length
// for every text, and be safe for concurrent use. A zero vector (an
// empty text, say) is similar to nothing. Embed stops with ctx's error
// when ctx ends first; any error leaves no vector.
type Embedder interface {
	Embed(ctx context.Context, text string) ([]float32, error)
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
// demonstrations are embedded once, by the first Select that succeeds,
// and kept; the task text is embedded on every Select. The order is the
// package doc's, with "similar" meaning a positive cosine; equal scores
// keep file order.
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
// computed by the first Select that completes them.
type embedScores struct {
	e     Embedder
	mu    sync.Mutex
	demos [][]float32 // [demonstration] → its embedding; nil until all are embedded
}

// scorer returns the cosine similarity of demonstration i to text, or
// the Embedder's error.
func (s *embedScores) scorer(ctx context.Context, lib *Library, text string) (func(i int) float64, error) {
	demos, err := s.demoVectors(ctx, lib)
	if err != nil {
		return nil, err
	}
	q, err := s.e.Embed(ctx, text)
	if err != nil {
		return nil, fmt.Errorf("library: embedding the task: %w", err)
	}
	return func(i int) float64 { return Cosine(q, demos[i]) }, nil
}

// demoVectors embeds the demonstrations once: a call that fails keeps
// nothing, and the next call starts again.
func (s *embedScores) demoVectors(ctx context.Context, lib *Library) ([][]float32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.demos != nil {
		return s.demos, nil
	}
	demos := make([][]float32, len(lib.Demos))
	for i, d := range lib.Demos {
		v, err := s.e.Embed(ctx, d.Description+" "+d.Input)
		if err != nil {
			return nil, fmt.Errorf("library: embedding demonstration %d: %w", i+1, err)
		}
		demos[i] = v
	}
	s.demos = demos
	return demos, nil
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
