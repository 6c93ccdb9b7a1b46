package policy

import (
	"fmt"
	"strings"
)

// TrainByteLevelBPE learns numMerges byte-level BPE merges from corpus and
// returns a tokenizer.json like ByteLevelTokenizerJSON's, with the merged
// tokens at ids 256.. and the specials after them. Texts are pre-split as
// the loaded tokenizer splits them (specials cut out, then GPT-2's pattern),
// so the merges apply at encode time exactly as counted.
//
// Merges never join a symbol holding a byte for which split returns true:
// with a digit test, numbers stay one token per digit, which keeps copying
// digits (from a question into code, from a tool result into an answer)
// easy for a small model. Pairs are taken most frequent first, ties broken
// by the smaller pair text, so the result is deterministic. Training stops
// early when no pair occurs at least twice.
func TrainByteLevelBPE(corpus []string, numMerges int, split func(b byte) bool, specials []string, eos string) ([]byte, error) {
	return TrainByteLevelBPEReport(corpus, numMerges, split, specials, eos, nil)
}

// TrainByteLevelBPEReport is TrainByteLevelBPE that calls report(done,
// numMerges) after each merge it learns (for a progress bar); a nil report
// is not called. An early stop leaves done short of numMerges.
func TrainByteLevelBPEReport(corpus []string, numMerges int, split func(b byte) bool, specials []string, eos string, report func(done, total int)) ([]byte, error) {
	if err := checkSpecials(specials, eos); err != nil {
		return nil, err
	}
	if numMerges < 0 {
		return nil, fmt.Errorf("policy: train tokenizer: numMerges %d is negative", numMerges)
	}
	words := countWords(corpus, specials)
	runes := gpt2ByteRunes()
	vocab := make(hfVocab, 256)
	for b, r := range runes {
		vocab[b] = string(r)
	}
	frozen := make([]bool, 256) // symbols merges may not touch
	for b := 0; b < 256; b++ {
		frozen[b] = split != nil && split(byte(b))
	}
	var merges []string
	for len(merges) < numMerges {
		a, b, ok := bestPair(words, frozen, vocab)
		if !ok {
			break
		}
		id := len(vocab)
		vocab = append(vocab, vocab[a]+vocab[b])
		frozen = append(frozen, false)
		merges = append(merges, vocab[a]+" "+vocab[b])
		for _, w := range words {
			w.syms = mergeSyms(w.syms, a, b, id)
		}
		if report != nil {
			report(len(merges), numMerges)
		}
	}
	byteLevel := hfByteLevel{Type: "ByteLevel", TrimOffsets: true, UseRegex: true}
	f := hfTokenizerFile{
		Version:      "1.0",
		PreTokenizer: byteLevel,
		Decoder:      byteLevel,
		Model:        hfBPE{Type: "BPE", Vocab: vocab, Merges: append([]string{}, merges...)},
	}
	for i, s := range specials {
		f.AddedTokens = append(f.AddedTokens, hfAddedToken{ID: len(vocab) + i, Content: s, Special: true})
	}
	return marshalJSON(f)
}

// trainWord is one distinct pre-token with its count and current symbols.
type trainWord struct {
	syms  []int
	count int
}

// countWords splits the corpus into pre-tokens and counts them; the order
// of the result is the order of first appearance (deterministic).
func countWords(corpus []string, specials []string) []*trainWord {
	index := map[string]*trainWord{}
	var out []*trainWord
	for _, text := range corpus {
		for _, piece := range splitSpecials(text, specials) {
			for i := 0; i < len(piece); {
				j := gpt2Next(piece, i)
				w := piece[i:j]
				i = j
				if tw, ok := index[w]; ok {
					tw.count++
					continue
				}
				tw := &trainWord{count: 1, syms: make([]int, len(w))}
				for k := 0; k < len(w); k++ {
					tw.syms[k] = int(w[k])
				}
				index[w] = tw
				out = append(out, tw)
			}
		}
	}
	return out
}

// splitSpecials cuts every occurrence of a special token out of text.
func splitSpecials(text string, specials []string) []string {
	pieces := []string{text}
	for _, s := range specials {
		var next []string
		for _, p := range pieces {
			next = append(next, strings.Split(p, s)...)
		}
		pieces = next
	}
	return pieces
}

// bestPair returns the most frequent adjacent pair of unfrozen symbols.
func bestPair(words []*trainWord, frozen []bool, vocab hfVocab) (a, b int, ok bool) {
	counts := map[[2]int]int{}
	for _, w := range words {
		for i := 0; i+1 < len(w.syms); i++ {
			x, y := w.syms[i], w.syms[i+1]
			if !frozen[x] && !frozen[y] {
				counts[[2]int{x, y}] += w.count
			}
		}
	}
	best, bestN := [2]int{}, 1
	for p, n := range counts {
		if n > bestN || n == bestN && ok && pairText(p, vocab) < pairText(best, vocab) {
			best, bestN, ok = p, n, true
		}
	}
	return best[0], best[1], ok
}

func pairText(p [2]int, vocab hfVocab) string { return vocab[p[0]] + " " + vocab[p[1]] }

// mergeSyms replaces every non-overlapping (a, b) in syms, left to right.
func mergeSyms(syms []int, a, b, id int) []int {
	out := syms[:0]
	for i := 0; i < len(syms); i++ {
		if i+1 < len(syms) && syms[i] == a && syms[i+1] == b {
			out = append(out, id)
			i++
			continue
		}
		out = append(out, syms[i])
	}
	return out
}
