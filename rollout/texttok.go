package rollout

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// textTokens is the Tokenizer of a text-level rollout (Remote), whose
// server's tokens are not known: its tokens are pieces of text, interned
// as they come. A text encodes to as many pieces as the server's
// tokenizer (base) gives it tokens, or one per 4 bytes without one, cut
// at rune boundaries, so that budgets and truncation count about what
// the server counts; the pieces decode back to the text exactly. Id 0 is
// the end-of-sequence token, whose text is base's EOS text ("" without
// base). It is safe for concurrent use.
type textTokens struct {
	base Tokenizer

	mu    sync.Mutex
	ids   map[string]int
	texts []string
}

func newTextTokens(base Tokenizer) *textTokens {
	eos := ""
	if base != nil {
		eos = base.Decode([]int{base.EOS()})
	}
	return &textTokens{base: base, ids: map[string]int{}, texts: []string{eos}}
}

// EOS is id 0.
func (t *textTokens) EOS() int { return 0 }

// Encode cuts s into its pieces (see textTokens) and returns their ids.
func (t *textTokens) Encode(s string) []int {
	if s == "" {
		return nil
	}
	n := (len(s) + 3) / 4
	if t.base != nil {
		n = len(t.base.Encode(s))
	}
	return t.pieces(s, n)
}

// pieces cuts s into n pieces of about equal length at rune boundaries
// (fewer when s has fewer runes, none of them empty) and returns their
// ids.
func (t *textTokens) pieces(s string, n int) []int {
	n = max(1, min(n, utf8.RuneCountInString(s)))
	ids := make([]int, 0, n)
	for k := n; k > 0; k-- {
		cut := len(s) / k
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		cut = max(cut, runeLen(s))
		ids = append(ids, t.id(s[:cut]))
		s = s[cut:]
		if s == "" {
			break
		}
	}
	return ids
}

// runeLen is the length in bytes of s's first rune.
func runeLen(s string) int {
	_, n := utf8.DecodeRuneInString(s)
	return n
}

// id interns one piece.
func (t *textTokens) id(piece string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if id, ok := t.ids[piece]; ok {
		return id
	}
	t.texts = append(t.texts, piece)
	t.ids[piece] = len(t.texts) - 1
	return len(t.texts) - 1
}

// Decode joins the pieces' texts.
func (t *textTokens) Decode(ids []int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	for _, id := range ids {
		if id >= 0 && id < len(t.texts) {
			b.WriteString(t.texts[id])
		}
	}
	return b.String()
}
