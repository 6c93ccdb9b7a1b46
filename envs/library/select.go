package library

import (
	"context"
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25 parameters of Select.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Match is one selected demonstration and its score against the task:
// BM25, or the cosine similarity of embeddings (NewEmbedIndex).
type Match struct {
	Demo  Demo
	Score float64
	// Transfer is true for a demonstration of another family than the
	// task's.
	Transfer bool
}

// Index is a library prepared for selection: the words of each
// demonstration's description and input, and their document frequencies.
// It is safe for concurrent use.
type Index struct {
	lib   *Library
	docs  [][]string // words of each demonstration
	df    map[string]int
	avgdl float64
	emb   *embedScores // set by NewEmbedIndex: rank by embeddings, not BM25
}

// NewIndex indexes lib for Select.
func NewIndex(lib *Library) *Index {
	ix := &Index{lib: lib, df: map[string]int{}}
	total := 0
	for _, d := range lib.Demos {
		words := Words(d.Description + " " + d.Input)
		ix.docs = append(ix.docs, words)
		total += len(words)
		seen := map[string]bool{}
		for _, w := range words {
			if !seen[w] {
				seen[w] = true
				ix.df[w]++
			}
		}
	}
	if len(ix.docs) > 0 {
		ix.avgdl = float64(total) / float64(len(ix.docs))
	}
	return ix
}

// Words splits text into lowercased words at every character that is
// not a letter or a digit.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// score is the BM25 score of document i for the query words q.
func (ix *Index) score(i int, q []string) float64 {
	doc := ix.docs[i]
	tf := map[string]int{}
	for _, w := range doc {
		tf[w]++
	}
	n := float64(len(ix.docs))
	s := 0.0
	for _, w := range q {
		f := float64(tf[w])
		if f == 0 {
			continue
		}
		df := float64(ix.df[w])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		s += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(len(doc))/ix.avgdl))
	}
	return s
}

// Select returns the k demonstrations most similar to a task of family
// whose prompt is text, in the order the package doc gives: similar ones
// of the family, then similar ones of other families, then the rest. A
// demonstration whose input is text itself is left out. Fewer than k come
// back only when the library holds fewer. An index of NewIndex scores by
// BM25, one of NewEmbedIndex by cosine similarity of embeddings; only
// the latter can fail (its Embedder's error, ctx's when ctx ends first).
func (ix *Index) Select(ctx context.Context, family, text string, k int) ([]Match, error) {
	score := ix.bm25Scorer(text)
	if ix.emb != nil {
		var err error
		if score, err = ix.emb.scorer(ctx, ix.lib, text); err != nil {
			return nil, err
		}
	}
	var all []Match
	for i, d := range ix.lib.Demos {
		if strings.TrimSpace(d.Input) == strings.TrimSpace(text) {
			continue
		}
		all = append(all, Match{Demo: d, Score: score(i), Transfer: d.Family != family})
	}
	tier := func(m Match) int {
		t := 0
		if m.Score <= 0 {
			t += 2
		}
		if m.Transfer {
			t++
		}
		return t
	}
	sort.SliceStable(all, func(a, b int) bool {
		ta, tb := tier(all[a]), tier(all[b])
		if ta != tb {
			return ta < tb
		}
		return all[a].Score > all[b].Score
	})
	return all[:min(k, len(all))], nil
}

// bm25Scorer returns the BM25 score of demonstration i for the distinct
// words of text.
func (ix *Index) bm25Scorer(text string) func(i int) float64 {
	seen := map[string]bool{}
	var uniq []string
	for _, w := range Words(text) {
		if !seen[w] {
			seen[w] = true
			uniq = append(uniq, w)
		}
	}
	return func(i int) float64 { return ix.score(i, uniq) }
}
