package toollib

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// bm25Index is the search that the JSON library used before the tool
// database, kept to compare retrieval quality with FTS5 (see
// retrieval_test.go): BM25 with k1 = 1.2, b = 0.75 and
// idf = ln(1 + (N - n + 0.5)/(n + 0.5)) over the words of each tool's
// name and doc, no stemming.
type bm25Index struct {
	tools []Tool
	terms [][]string
}

func newBM25(tools []Tool) *bm25Index {
	ix := &bm25Index{tools: tools}
	for _, t := range tools {
		ix.terms = append(ix.terms, append(words(t.Name), words(t.Doc)...))
	}
	return ix
}

// search returns up to k tools for query, best first, ties by name;
// tools that score zero are left out.
func (ix *bm25Index) search(query string, k int) []Tool {
	const k1, b = 1.2, 0.75
	q := words(query)
	slices.Sort(q)
	q = slices.Compact(q)
	n := float64(len(ix.tools))
	df := map[string]int{}
	total := 0
	for _, terms := range ix.terms {
		total += len(terms)
		for _, w := range q {
			if slices.Contains(terms, w) {
				df[w]++
			}
		}
	}
	avgdl := float64(total) / max(n, 1)
	type hit struct {
		t     Tool
		score float64
	}
	var hits []hit
	for i, terms := range ix.terms {
		score, dl := 0.0, float64(len(terms))
		for _, w := range q {
			f := 0.0
			for _, t := range terms {
				if t == w {
					f++
				}
			}
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*dl/max(avgdl, 1e-9)))
		}
		if score > 0 {
			hits = append(hits, hit{ix.tools[i], score})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.t.Name, b.t.Name))
	})
	out := make([]Tool, 0, min(k, len(hits)))
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.t)
	}
	return out
}
