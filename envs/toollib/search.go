package toollib

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// BM25 parameters.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// stopWords are dropped from queries and documents: task prompts are full
// sentences, and a tool should not be retrieved for sharing "the" with one.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an and are as at be by for from how if in is it its of on or that the this to what when which with") {
		stopWords[w] = true
	}
}

// Search returns up to k tools most relevant to query, ranked by BM25
// (k1 = 1.2, b = 0.75, idf = ln(1 + (N - n + 0.5)/(n + 0.5))) over the
// words of each tool's name and doc. Words are runs of letters, split at
// camelCase humps, lowercased, stop words dropped; digits and punctuation
// separate words. Each distinct query word counts once. Tools that score
// zero are left out; ties are broken by name. The result is deterministic.
func (l *Library) Search(query string, k int) []Tool {
	q := words(query)
	slices.Sort(q)
	q = slices.Compact(q)
	if k <= 0 || len(q) == 0 {
		return nil
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	n := float64(len(l.tools))
	df := map[string]int{}
	total := 0
	for _, e := range l.tools {
		total += len(e.terms)
		for _, w := range q {
			if slices.Contains(e.terms, w) {
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
	for _, e := range l.tools {
		score := 0.0
		dl := float64(len(e.terms))
		for _, w := range q {
			f := float64(count(e.terms, w))
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			score += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*dl/max(avgdl, 1e-9)))
		}
		if score > 0 {
			hits = append(hits, hit{e.tool, score})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.t.Name, b.t.Name))
	})
	out := make([]Tool, 0, min(k, len(hits)))
	for _, h := range hits[:min(k, len(hits))] {
		h.t.Cases = slices.Clone(h.t.Cases)
		out = append(out, h.t)
	}
	return out
}

func count(terms []string, w string) int {
	c := 0
	for _, t := range terms {
		if t == w {
			c++
		}
	}
	return c
}

// words splits s into lowercased words: runs of letters, cut where a lower
// case letter meets an upper case one ("isPrime") and before the last of a
// run of capitals that a lower case letter follows ("parseHTTPRequest"),
// stop words dropped.
func words(s string) []string {
	var out []string
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		rs := []rune(run)
		start := 0
		for i := 1; i < len(rs); i++ {
			lowerUpper := unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
			acronymEnd := unicode.IsUpper(rs[i-1]) && unicode.IsUpper(rs[i]) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if lowerUpper || acronymEnd {
				out = appendWord(out, string(rs[start:i]))
				start = i
			}
		}
		out = appendWord(out, string(rs[start:]))
	}
	return out
}

func appendWord(out []string, w string) []string {
	w = strings.ToLower(w)
	if stopWords[w] {
		return out
	}
	return append(out, w)
}
