package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sugarme/tokenizer/pretokenizer"
	"github.com/sugarme/tokenizer/pretrained"
)

var testSpecials = []string{
	"<think>", "</think>", "<code>", "</code>", "<output>", "</output>",
	"<answer>", "</answer>", "<|endoftext|>",
}

// byteLevelTokenizer writes and loads the tiny model's tokenizer.
func byteLevelTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	dir := t.TempDir()
	if err := WriteByteLevelTokenizer(dir, testSpecials, "<|endoftext|>"); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// mergesTokenizer loads testdata/gpt2-merges: GPT-2's byte ids and first
// seven merges (so " the" is 262 as in GPT-2), "a a" (263), "aa aa" (264),
// and added tokens <|endoftext|> (265) and <think> (266).
func mergesTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := LoadTokenizer(filepath.Join("testdata", "gpt2-merges", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestGPT2ByteRunes(t *testing.T) {
	m := gpt2ByteRunes()
	known := map[byte]rune{' ': 'Ġ', '\n': 'Ċ', '\t': 'ĉ', 0: 'Ā', 'a': 'a', '!': '!', 0x7f: 'ġ', 0xa0: 'ł', 0xad: 'Ń', 0xff: 'ÿ'}
	for b, r := range known {
		if m[b] != r {
			t.Errorf("byte %#02x maps to %q, want %q", b, m[b], r)
		}
	}
	for b := range 256 { // sugarme's own table agrees
		if got, want := string(m[b]), pretokenizer.BytesChar[uint8(b)]; got != want {
			t.Errorf("byte %#02x: %q, sugarme has %q", b, got, want)
		}
		if got := byteLevelDecode(string(m[b])); got != string([]byte{byte(b)}) {
			t.Errorf("byteLevelDecode(%q) = %q, want byte %#02x", string(m[b]), got, b)
		}
	}
}

var roundTripCases = []struct{ name, text string }{
	{"empty", ""},
	{"ascii", "hello world"},
	{"newlines", "a\nb\n\n\nc\r\n"},
	{"space runs", "  lead, mid   dle, trail   "},
	{"tabs", "\tx\t\ty\t"},
	{"digits", "3.14159 + 2,718 = 12345678901234567890"},
	{"go code", "package main\n\nfunc main() {\n\tfmt.Println(\"6*7 =\", 6*7) // answer\n}\n"},
	{"unicode", "héllo wörld, 世界 🎉 e\u0301 \u3000x"},
	{"tags", "<think>2+2?</think><code>fmt.Println(2+2)</code><output>4\n</output><answer>4</answer><|endoftext|>"},
	{"partial tags", "<thin <think </think <|endoftext| think> <<think>> </</think>"},
	{"tags in words", "a<think>b</think>c<answer>\\boxed{4}</answer>"},
	{"contractions", "it's don't I'M they'll we've"},
	{"invalid utf-8", "\xff\xfe a\x80b \xc3"},
}

func TestRoundTrip(t *testing.T) {
	toks := map[string]*Tokenizer{"byte-level": byteLevelTokenizer(t), "merges": mergesTokenizer(t)}
	for tname, tok := range toks {
		for _, tc := range roundTripCases {
			t.Run(tname+"/"+tc.name, func(t *testing.T) {
				ids := tok.Encode(tc.text)
				if got := tok.Decode(ids); got != tc.text {
					t.Errorf("Decode(Encode(%q)) = %q (ids %v)", tc.text, got, ids)
				}
				var b strings.Builder
				for _, id := range ids {
					b.WriteString(tok.Decode([]int{id}))
				}
				if b.String() != tc.text {
					t.Errorf("token-by-token decode = %q, want %q", b.String(), tc.text)
				}
			})
		}
	}
}

func TestByteLevelEncodesBytes(t *testing.T) {
	tok := byteLevelTokenizer(t)
	text := "Go 1.26\n\tx := \"é\""
	var want []int
	for i := 0; i < len(text); i++ {
		want = append(want, int(text[i]))
	}
	if got := tok.Encode(text); !reflect.DeepEqual(got, want) {
		t.Errorf("Encode(%q) = %v, want the bytes %v", text, got, want)
	}
}

func TestSpecialTokens(t *testing.T) {
	tok := byteLevelTokenizer(t)
	for i, s := range testSpecials {
		t.Run(s, func(t *testing.T) {
			if got := tok.Encode(s); !reflect.DeepEqual(got, []int{256 + i}) {
				t.Errorf("Encode(%q) = %v, want [%d]", s, got, 256+i)
			}
			if id, ok := tok.TokenID(s); !ok || id != 256+i {
				t.Errorf("TokenID(%q) = %d, %v, want %d", s, id, ok, 256+i)
			}
			if got := tok.Decode([]int{256 + i}); got != s {
				t.Errorf("Decode([%d]) = %q, want %q", 256+i, got, s)
			}
		})
	}
	tests := []struct {
		name, text string
		want       []int
	}{
		{"inside text", "a<think>b", []int{'a', 256, 'b'}},
		{"adjacent", "</think><think><think>", []int{257, 256, 256}},
		{"answer block", "<answer>7</answer>", []int{262, '7', 263}},
		{"partial tag", "<think", []int{'<', 't', 'h', 'i', 'n', 'k'}},
		{"eos in text", "x<|endoftext|>", []int{'x', 264}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tok.Encode(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Encode(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
	if tok.EOS() != 264 {
		t.Errorf("EOS = %d, want 264", tok.EOS())
	}
}

func TestAddedTokensLongestFirst(t *testing.T) {
	tok := byteLevelTokenizerWith(t, []string{"<a>", "<a>>", "xyz"}, "<a>")
	tests := []struct {
		text string
		want []int
	}{
		{"<a>>", []int{257}},
		{"<a><a>>xyz", []int{256, 257, 258}},
		{"<<a>", []int{'<', 256}},
	}
	for _, tc := range tests {
		if got := tok.Encode(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Encode(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func byteLevelTokenizerWith(t testing.TB, specials []string, eos string) *Tokenizer {
	t.Helper()
	dir := t.TempDir()
	if err := WriteByteLevelTokenizer(dir, specials, eos); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestVocabSize(t *testing.T) {
	tests := []struct {
		name     string
		specials []string
	}{
		{"one special", []string{"<eos>"}},
		{"math tags", testSpecials},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eos := tc.specials[len(tc.specials)-1]
			tok := byteLevelTokenizerWith(t, tc.specials, eos)
			if got, want := tok.VocabSize(), 256+len(tc.specials); got != want {
				t.Errorf("VocabSize = %d, want %d", got, want)
			}
			if got, want := tok.EOS(), 256+len(tc.specials)-1; got != want {
				t.Errorf("EOS = %d, want %d", got, want)
			}
		})
	}
	if got := mergesTokenizer(t).VocabSize(); got != 267 {
		t.Errorf("merges tokenizer VocabSize = %d, want 267", got)
	}
}

func TestByteLevelTokenizerJSON(t *testing.T) {
	a, err := ByteLevelTokenizerJSON(testSpecials, "<|endoftext|>")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ByteLevelTokenizerJSON(testSpecials, "<|endoftext|>")
	if !bytes.Equal(a, b) {
		t.Error("output differs between calls")
	}
	if !bytes.Contains(a, []byte(`"content": "<think>"`)) {
		t.Error("special tokens are escaped or missing")
	}
	var doc struct {
		Model struct {
			Vocab  map[string]int
			Merges []string
		}
	}
	if err := json.Unmarshal(a, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Model.Vocab) != 256 || doc.Model.Merges == nil || len(doc.Model.Merges) != 0 {
		t.Errorf("vocab has %d entries, merges %v; want 256 and []", len(doc.Model.Vocab), doc.Model.Merges)
	}
	if doc.Model.Vocab["Ġ"] != ' ' || doc.Model.Vocab["Ċ"] != '\n' || doc.Model.Vocab["a"] != 'a' {
		t.Error("byte symbols do not have their byte value as id")
	}
	// sugarme's own pipeline accepts the file and counts the same vocabulary.
	tk, err := pretrained.FromReader(bytes.NewReader(a))
	if err != nil {
		t.Fatalf("sugarme cannot read the file: %v", err)
	}
	if got := tk.GetVocabSize(true); got != 256+len(testSpecials) {
		t.Errorf("sugarme vocab size = %d, want %d", got, 256+len(testSpecials))
	}
}

func TestByteLevelTokenizerJSONErrors(t *testing.T) {
	tests := []struct {
		name     string
		specials []string
		eos      string
	}{
		{"eos missing", []string{"<think>"}, "<eos>"},
		{"no specials", nil, "<eos>"},
		{"duplicate", []string{"<eos>", "<eos>"}, "<eos>"},
		{"empty", []string{"", "<eos>"}, "<eos>"},
		{"byte symbol", []string{"a", "<eos>"}, "<eos>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ByteLevelTokenizerJSON(tc.specials, tc.eos)
			if err == nil || !strings.HasPrefix(err.Error(), "policy: ") {
				t.Errorf("err = %v, want a policy error", err)
			}
		})
	}
}

func TestMergesHonoured(t *testing.T) {
	tok := mergesTokenizer(t)
	tests := []struct {
		name, text string
		want       []int
	}{
		{"the with space", " the", []int{262}},
		{"the", "the", []int{83, 258}},
		{"hello there", "hello there", []int{258, 75, 75, 78, 262, 260}},
		{"words stay apart", "a the", []int{64, 262}},
		{"inside a word", "xthe", []int{87, 83, 258}},
		{"two spaces", "  the", []int{220, 262}},
		{"trailing spaces", "the  ", []int{83, 258, 220, 220}},
		{"tie goes left", "aaa", []int{263, 64}},
		{"merge of merges", "aaaaa", []int{264, 64}},
		{"seven", "aaaaaaa", []int{264, 263, 64}},
		{"contraction", "can't", []int{66, 64, 77, 6, 83}},
		{"added tokens", " the<think>the<|endoftext|>", []int{262, 266, 83, 258, 265}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tok.Encode(tc.text); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Encode(%q) = %v, want %v", tc.text, got, tc.want)
			}
			if got := tok.Decode(tc.want); got != tc.text {
				t.Errorf("Decode(%v) = %q, want %q", tc.want, got, tc.text)
			}
		})
	}
	if id, ok := tok.TokenID("Ġthe"); !ok || id != 262 {
		t.Errorf("TokenID(Ġthe) = %d, %v, want 262", id, ok)
	}
	if tok.EOS() != 265 {
		t.Errorf("EOS = %d, want 265", tok.EOS())
	}
}

func TestDecodeUnknownIDs(t *testing.T) {
	tok := byteLevelTokenizer(t)
	if got := tok.Decode([]int{-1, 'h', 1 << 30, 'i', tok.VocabSize()}); got != "hi" {
		t.Errorf("Decode = %q, want %q", got, "hi")
	}
	if got := tok.Decode(nil); got != "" {
		t.Errorf("Decode(nil) = %q", got)
	}
}

func TestEncodeConcurrent(t *testing.T) {
	tok := mergesTokenizer(t)
	want := tok.Encode("hello there, the aaaa <think> the")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				text := fmt.Sprintf("hello there, the aaaa <think> the%d", g*1000+i)
				if got := tok.Encode(text); !reflect.DeepEqual(got[:len(want)], want) {
					t.Errorf("concurrent Encode = %v, want prefix %v", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func FuzzRoundTrip(f *testing.F) {
	for _, tc := range roundTripCases {
		f.Add(tc.text)
	}
	f.Add("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa the the")
	f.Add("'s'S'll \r\n\r\n \u00a0\u2028x")
	toks := []*Tokenizer{byteLevelTokenizer(f), mergesTokenizer(f)}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range toks {
			ids := tok.Encode(s)
			for _, id := range ids {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("Encode(%q) gave id %d outside [0, %d)", s, id, tok.VocabSize())
				}
			}
			if got := tok.Decode(ids); got != s {
				t.Fatalf("Decode(Encode(%q)) = %q", s, got)
			}
		}
		for _, next := range []func(string, int) int{gpt2Next, qwen2Next} {
			if got := strings.Join(preTokens(s, next), ""); got != s {
				t.Fatalf("pre-tokens of %q join to %q", s, got)
			}
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	text := strings.Repeat("<think>Let x = 12*7. So the answer is 84.</think>\n<code>fmt.Println(12 * 7)</code>\n", 50)
	for _, tc := range []struct {
		name string
		tok  *Tokenizer
	}{{"byte-level", byteLevelTokenizer(b)}, {"merges", mergesTokenizer(b)}} {
		b.Run(tc.name, func(b *testing.B) {
			n := 0
			for b.Loop() {
				n += len(tc.tok.Encode(text))
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	tok := byteLevelTokenizer(b)
	ids := tok.Encode(strings.Repeat("the answer is <answer>42</answer> ", 30))
	b.Run("one token", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = tok.Decode(ids[i%len(ids) : i%len(ids)+1])
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
	})
	b.Run("1k tokens", func(b *testing.B) {
		for b.Loop() {
			_ = tok.Decode(ids)
		}
		b.ReportMetric(float64(b.N*len(ids))/b.Elapsed().Seconds(), "tokens/s")
	})
}

func ExampleTokenizer() {
	dir, err := os.MkdirTemp("", "tokenizer")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	specials := []string{"<think>", "</think>", "<|endoftext|>"}
	if err := WriteByteLevelTokenizer(dir, specials, "<|endoftext|>"); err != nil {
		panic(err)
	}
	tok, err := LoadTokenizer(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		panic(err)
	}
	ids := tok.Encode("<think>hi</think>")
	fmt.Println(ids, tok.VocabSize(), tok.EOS())
	fmt.Printf("%q\n", tok.Decode(ids))
	// Output:
	// [256 104 105 257] 259 258
	// "<think>hi</think>"
}
