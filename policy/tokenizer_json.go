package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// gpt2ByteRunes is GPT-2's bytes-to-unicode map: printable bytes ('!'..'~',
// '¡'..'¬', '®'..'ÿ') stand for themselves, the other 68 bytes, in order,
// for U+0100 onwards (so space is 'Ġ' and newline 'Ċ').
func gpt2ByteRunes() (m [256]rune) {
	n := 0
	for b := range m {
		if '!' <= b && b <= '~' || '¡' <= b && b <= '¬' || '®' <= b && b <= 'ÿ' {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}

// byteOfRune inverts gpt2ByteRunes; -1 marks runes that stand for no byte.
var byteOfRune = func() (inv [256 + 68]int16) {
	for i := range inv {
		inv[i] = -1
	}
	for b, r := range gpt2ByteRunes() {
		inv[r] = int16(b)
	}
	return inv
}()

// byteLevelDecode turns a vocabulary entry written in byte-level symbols
// back into its bytes. Runes that stand for no byte are kept as UTF-8.
func byteLevelDecode(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r >= 0 && int(r) < len(byteOfRune) && byteOfRune[r] >= 0 {
			out = append(out, byte(byteOfRune[r]))
		} else {
			out = utf8.AppendRune(out, r)
		}
	}
	return string(out)
}

// The structs below write a HuggingFace tokenizer.json (format version 1.0)
// with fields in the order HuggingFace writes them.
type hfTokenizerFile struct {
	Version       string         `json:"version"`
	Truncation    *struct{}      `json:"truncation"`
	Padding       *struct{}      `json:"padding"`
	AddedTokens   []hfAddedToken `json:"added_tokens"`
	Normalizer    *struct{}      `json:"normalizer"`
	PreTokenizer  hfByteLevel    `json:"pre_tokenizer"`
	PostProcessor *struct{}      `json:"post_processor"`
	Decoder       hfByteLevel    `json:"decoder"`
	Model         hfBPE          `json:"model"`
}

type hfAddedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

type hfByteLevel struct {
	Type           string `json:"type"`
	AddPrefixSpace bool   `json:"add_prefix_space"`
	TrimOffsets    bool   `json:"trim_offsets"`
	UseRegex       bool   `json:"use_regex"`
}

type hfBPE struct {
	Type                    string   `json:"type"`
	Dropout                 *float64 `json:"dropout"`
	UnkToken                *string  `json:"unk_token"`
	ContinuingSubwordPrefix *string  `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string  `json:"end_of_word_suffix"`
	FuseUnk                 bool     `json:"fuse_unk"`
	ByteFallback            bool     `json:"byte_fallback"`
	Vocab                   hfVocab  `json:"vocab"`
	Merges                  []string `json:"merges"`
}

// hfVocab lists tokens by id and marshals as a JSON object in id order.
type hfVocab []string

func (v hfVocab) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for id, tok := range v {
		if id > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(tok)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s:%d", k, id)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ByteLevelTokenizerJSON returns a tokenizer.json for a GPT-2 style
// byte-level BPE without merges: ids 0..255 are the bytes (in GPT-2's
// byte-level symbols), and specials follow as special added tokens with ids
// 256, 257, ... in the given order. eos must be one of specials; it is not
// recorded in tokenizer.json (HuggingFace keeps it in tokenizer_config.json,
// see WriteByteLevelTokenizer). The output is deterministic.
func ByteLevelTokenizerJSON(specials []string, eos string) ([]byte, error) {
	if err := checkSpecials(specials, eos); err != nil {
		return nil, err
	}
	runes := gpt2ByteRunes()
	vocab := make(hfVocab, 256)
	for b, r := range runes {
		vocab[b] = string(r)
	}
	byteLevel := hfByteLevel{Type: "ByteLevel", TrimOffsets: true, UseRegex: true}
	f := hfTokenizerFile{
		Version:      "1.0",
		PreTokenizer: byteLevel,
		Decoder:      byteLevel,
		Model:        hfBPE{Type: "BPE", Vocab: vocab, Merges: []string{}},
	}
	for i, s := range specials {
		f.AddedTokens = append(f.AddedTokens, hfAddedToken{ID: 256 + i, Content: s, Special: true})
	}
	return marshalJSON(f)
}

// checkSpecials requires distinct, non-empty specials that are not byte
// symbols, with eos among them.
func checkSpecials(specials []string, eos string) error {
	symbols := map[string]bool{}
	for _, r := range gpt2ByteRunes() {
		symbols[string(r)] = true
	}
	seen := map[string]bool{}
	for _, s := range specials {
		switch {
		case s == "":
			return errors.New("policy: byte-level tokenizer: empty special token")
		case seen[s]:
			return fmt.Errorf("policy: byte-level tokenizer: special token %q given twice", s)
		case symbols[s]:
			return fmt.Errorf("policy: byte-level tokenizer: special token %q is a byte symbol: use a longer tag", s)
		}
		seen[s] = true
	}
	if !seen[eos] {
		return fmt.Errorf("policy: byte-level tokenizer: EOS %q is not among the special tokens %q: add it", eos, specials)
	}
	return nil
}

// marshalJSON indents with two spaces and keeps '<', '>' and '&' readable.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteByteLevelTokenizer writes dir/tokenizer.json (ByteLevelTokenizerJSON)
// and dir/tokenizer_config.json naming eos, each atomically, creating dir if
// needed. LoadTokenizer on the written tokenizer.json gives eos as EOS.
func WriteByteLevelTokenizer(dir string, specials []string, eos string) error {
	tok, err := ByteLevelTokenizerJSON(specials, eos)
	if err != nil {
		return err
	}
	return TokenizerFiles{JSON: tok, Config: TokenizerConfigJSON(eos)}.Write(dir)
}
