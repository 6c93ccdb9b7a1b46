package policy

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/model/bpe"
	"github.com/sugarme/tokenizer/pretrained"
	"golang.org/x/text/unicode/norm"
)

// Tokenizer is a byte-level BPE tokenizer (GPT-2, Qwen2) read from a
// HuggingFace tokenizer.json. It is safe for concurrent use.
//
// sugarme/tokenizer parses the file and builds the BPE model (vocabulary and
// ranked merges). Splitting on added tokens, pre-tokenization, applying merges
// and decoding are done here, because sugarme v0.3.0 drops text around added
// tokens when several occur, lacks the whitespace rules of the GPT-2 split
// pattern, breaks ties between equal-rank merges arbitrarily, panics on the
// Qwen2 split pattern, and renumbers added tokens instead of keeping their ids.
//
// Contracts: Decode(Encode(s)) == s for every string s when the file has no
// normalizer (an NFC normalizer applies NFC first); each added token (special
// or not) found in the text encodes to its single id, leftmost first and
// longest on ties; Decode(a)+Decode(b) == Decode(append(a, b...)), so text can
// be decoded one token at a time (a single token may hold part of a UTF-8
// character).
type Tokenizer struct {
	byteIDs [256]int                  // id of each single-byte symbol
	merges  bpe.Merges                // (left, right) → rank, merged id; empty: bytes only
	split   func(s string, i int) int // end of the pre-token that starts at i; nil: no split
	nfc     bool                      // apply NFC before encoding
	added   []addedToken              // split out of the text before BPE
	ids     map[string]int            // vocabulary string or added token → id
	pieces  []string                  // id → the bytes it decodes to; "" for unused ids
	eos     int                       // end-of-sequence id
	stops   []int                     // ids that end generation, eos first
	files   TokenizerFiles            // the files it was read from
	mu      sync.Mutex                // guards cache
	cache   map[string][]int          // pre-token → ids
}

type addedToken struct {
	content string
	id      int
}

const (
	tokCacheMax = 1 << 16 // pre-tokens remembered before the cache is reset
	tokMaxID    = 1 << 24 // larger ids are taken as a corrupt file
)

// parseTokenizer builds a tokenizer from the content of a tokenizer.json.
// Its EOS and stop ids are left unset (ParseTokenizer sets them).
func parseTokenizer(data []byte) (*Tokenizer, error) {
	var cfg tokenizer.Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, err
	}
	t := &Tokenizer{cache: make(map[string][]int)}
	var err error
	if t.nfc, err = tokNormalizer(cfg.Normalizer); err != nil {
		return nil, err
	}
	if t.split, err = tokPreTokenizer(cfg.PreTokenizer); err != nil {
		return nil, err
	}
	if cfg.Decoder != nil && cfg.Decoder["type"] != "ByteLevel" {
		return nil, fmt.Errorf("decoder %v is not supported: want ByteLevel", cfg.Decoder["type"])
	}
	m, err := tokModel(&cfg)
	if err != nil {
		return nil, err
	}
	if err := t.setVocab(m, cfg.AddedTokens); err != nil {
		return nil, err
	}
	return t, nil
}

func tokNormalizer(c map[string]any) (nfc bool, err error) {
	switch {
	case c == nil:
		return false, nil
	case c["type"] == "NFC":
		return true, nil
	}
	return false, fmt.Errorf("normalizer %v is not supported: want none or NFC", c["type"])
}

// The Qwen2 split pattern, as it appears in Qwen2 and Qwen2.5 tokenizer.json.
const qwen2Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// tokPreTokenizer accepts the pre-tokenizers of GPT-2 (ByteLevel with its
// built-in split) and Qwen2 (Split with qwen2Pattern, then ByteLevel without
// a split), and ByteLevel without a split.
func tokPreTokenizer(c map[string]any) (func(string, int) int, error) {
	if c == nil {
		return nil, nil
	}
	switch c["type"] {
	case "ByteLevel":
		if v, _ := c["add_prefix_space"].(bool); v {
			return nil, errors.New("pre_tokenizer ByteLevel with add_prefix_space true is not supported")
		}
		if v, ok := c["use_regex"].(bool); ok && !v {
			return nil, nil
		}
		return gpt2Next, nil
	case "Sequence":
		seq, _ := c["pretokenizers"].([]any)
		if len(seq) == 2 {
			sp, _ := seq[0].(map[string]any)
			pat, _ := sp["pattern"].(map[string]any)
			bl, _ := seq[1].(map[string]any)
			if sp["type"] == "Split" && pat["Regex"] == qwen2Pattern && sp["behavior"] == "Isolated" &&
				sp["invert"] != true && bl["type"] == "ByteLevel" && bl["use_regex"] == false && bl["add_prefix_space"] != true {
				return qwen2Next, nil
			}
		}
	}
	b, _ := json.Marshal(c)
	return nil, fmt.Errorf("pre_tokenizer %s is not supported: want GPT-2 or Qwen2 byte-level splitting", b)
}

// tokModel builds the BPE model through sugarme. sugarme type-asserts JSON
// values without checking, so a malformed model panics; that is an error here.
func tokModel(cfg *tokenizer.Config) (m *bpe.BPE, err error) {
	if cfg.Model == nil || cfg.Model["type"] != "BPE" {
		return nil, fmt.Errorf("model type %v is not supported: want BPE", cfg.Model["type"])
	}
	for _, key := range []string{"dropout", "continuing_subword_prefix", "end_of_word_suffix"} {
		if v := cfg.Model[key]; v != nil && v != "" {
			return nil, fmt.Errorf("BPE %s %v is not supported", key, v)
		}
	}
	if cfg.Model["ignore_merges"] == true {
		return nil, errors.New("BPE ignore_merges true is not supported")
	}
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("malformed BPE model: %v", r)
		}
	}()
	mod, err := pretrained.CreateModel(cfg)
	if err != nil {
		return nil, fmt.Errorf("BPE model: %w", err)
	}
	m, ok := mod.(*bpe.BPE)
	if !ok || m.Vocab == nil || m.Merges == nil {
		return nil, errors.New("BPE model: sugarme returned no vocabulary")
	}
	return m, nil
}

// setVocab fills the id tables from the model vocabulary and the added
// tokens, keeping the ids the file gives.
func (t *Tokenizer) setVocab(m *bpe.BPE, added []tokenizer.TokenConfig) error {
	vocab := *m.Vocab
	maxID := -1
	for s, id := range vocab {
		if id < 0 || id >= tokMaxID {
			return fmt.Errorf("token %q has id %d out of range", s, id)
		}
		maxID = max(maxID, id)
	}
	for _, a := range added {
		if a.Id < 0 || a.Id >= tokMaxID || a.Content == "" {
			return fmt.Errorf("added token %q with id %d is invalid", a.Content, a.Id)
		}
		maxID = max(maxID, int(a.Id))
	}
	t.pieces = make([]string, maxID+1)
	t.ids = make(map[string]int, len(vocab)+len(added))
	for s, id := range vocab {
		t.pieces[id] = byteLevelDecode(s)
		t.ids[s] = id
	}
	for b, r := range gpt2ByteRunes() {
		id, ok := vocab[string(r)]
		if !ok {
			return fmt.Errorf("vocabulary lacks %q, the byte-level symbol of byte %#02x", string(r), b)
		}
		t.byteIDs[b] = id
	}
	for _, a := range added {
		t.pieces[a.Id] = a.Content
		t.ids[a.Content] = int(a.Id)
		t.added = append(t.added, addedToken{content: a.Content, id: int(a.Id)})
	}
	t.merges = *m.Merges
	return nil
}

// EOS is the end-of-sequence token id.
func (t *Tokenizer) EOS() int { return t.eos }

// VocabSize is one more than the largest token id.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// TokenID returns the id of an added token (such as "<think>") or of a
// vocabulary entry written in byte-level symbols (such as "Ġthe").
func (t *Tokenizer) TokenID(s string) (int, bool) {
	id, ok := t.ids[s]
	return id, ok
}

// Decode joins the bytes of the given tokens. Added tokens decode to their
// text, special or not; ids with no token decode to nothing.
func (t *Tokenizer) Decode(ids []int) string {
	if len(ids) == 1 {
		return t.piece(ids[0])
	}
	n := 0
	for _, id := range ids {
		n += len(t.piece(id))
	}
	var b strings.Builder
	b.Grow(n)
	for _, id := range ids {
		b.WriteString(t.piece(id))
	}
	return b.String()
}

func (t *Tokenizer) piece(id int) string {
	if uint(id) >= uint(len(t.pieces)) {
		return ""
	}
	return t.pieces[id]
}

// Encode returns the token ids of text.
func (t *Tokenizer) Encode(text string) []int {
	ids := make([]int, 0, len(text)/2+1)
	if len(t.added) == 0 {
		return t.encodeText(ids, text)
	}
	next := make([]int, len(t.added)) // next match of each added token, or -1
	for i := range next {
		next[i] = -2 // not searched yet
	}
	for pos := 0; pos < len(text); {
		k, at := t.nextAdded(text, pos, next)
		if k < 0 {
			return t.encodeText(ids, text[pos:])
		}
		ids = t.encodeText(ids, text[pos:at])
		ids = append(ids, t.added[k].id)
		pos = at + len(t.added[k].content)
	}
	return ids
}

// nextAdded finds the added token that occurs first at or after pos, the
// longest on ties; k is -1 when none occurs. next caches each token's next
// match so the text is searched about once per token.
func (t *Tokenizer) nextAdded(text string, pos int, next []int) (k, at int) {
	k, at = -1, len(text)
	for i, a := range t.added {
		if next[i] == -1 {
			continue
		}
		if next[i] < pos {
			j := strings.Index(text[pos:], a.content)
			if j < 0 {
				next[i] = -1
				continue
			}
			next[i] = pos + j
		}
		if next[i] < at || next[i] == at && len(a.content) > len(t.added[k].content) {
			k, at = i, next[i]
		}
	}
	return k, at
}

// encodeText appends the ids of text that holds no added token.
func (t *Tokenizer) encodeText(ids []int, text string) []int {
	if text == "" {
		return ids
	}
	if t.nfc {
		text = norm.NFC.String(text)
	}
	if len(t.merges) == 0 {
		for i := 0; i < len(text); i++ {
			ids = append(ids, t.byteIDs[text[i]])
		}
		return ids
	}
	if t.split == nil {
		return t.encodeWord(ids, text)
	}
	for i := 0; i < len(text); {
		j := t.split(text, i)
		ids = t.encodeWord(ids, text[i:j])
		i = j
	}
	return ids
}

// encodeWord appends the BPE ids of one pre-token, through the cache.
func (t *Tokenizer) encodeWord(ids []int, word string) []int {
	t.mu.Lock()
	hit, ok := t.cache[word]
	t.mu.Unlock()
	if ok {
		return append(ids, hit...)
	}
	out := t.mergeWord(word)
	t.mu.Lock()
	if len(t.cache) >= tokCacheMax {
		clear(t.cache)
	}
	t.cache[word] = out
	t.mu.Unlock()
	return append(ids, out...)
}

type bpeSymbol struct{ id, prev, next, size int } // size 0: merged into its left neighbour

type bpeCandidate struct{ rank, pos, id int }

// bpeQueue orders candidate merges by rank, then leftmost position, as
// HuggingFace tokenizers does.
type bpeQueue []bpeCandidate

func (q bpeQueue) Len() int { return len(q) }
func (q bpeQueue) Less(i, j int) bool {
	return q[i].rank < q[j].rank || q[i].rank == q[j].rank && q[i].pos < q[j].pos
}
func (q bpeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *bpeQueue) Push(x any)   { *q = append(*q, x.(bpeCandidate)) }
func (q *bpeQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// mergeWord applies the merges to the bytes of word: always the
// lowest-ranked adjacent pair, leftmost first, until none applies.
func (t *Tokenizer) mergeWord(word string) []int {
	syms := make([]bpeSymbol, len(word))
	for i := range syms {
		syms[i] = bpeSymbol{id: t.byteIDs[word[i]], prev: i - 1, next: i + 1, size: 1}
	}
	syms[len(syms)-1].next = -1
	q := bpeQueue{}
	push := func(pos int) {
		if pos < 0 || syms[pos].next < 0 {
			return
		}
		if m, ok := t.merges[bpe.Pair{C1: syms[pos].id, C2: syms[syms[pos].next].id}]; ok {
			heap.Push(&q, bpeCandidate{rank: m.Rank, pos: pos, id: m.NewId})
		}
	}
	for i := range syms {
		push(i)
	}
	for q.Len() > 0 {
		c := heap.Pop(&q).(bpeCandidate)
		s := &syms[c.pos]
		if s.size == 0 || s.next < 0 {
			continue
		}
		right := &syms[s.next]
		if m, ok := t.merges[bpe.Pair{C1: s.id, C2: right.id}]; !ok || m.NewId != c.id {
			continue // stale: a neighbour changed since it was queued
		}
		s.id, s.size, s.next = c.id, s.size+right.size, right.next
		right.size = 0
		if s.next >= 0 {
			syms[s.next].prev = c.pos
		}
		push(s.prev)
		push(c.pos)
	}
	var out []int
	for i := 0; i >= 0; i = syms[i].next {
		out = append(out, syms[i].id)
	}
	return out
}
