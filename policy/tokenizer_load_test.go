package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func preTokens(s string, next func(string, int) int) []string {
	var out []string
	for i := 0; i < len(s); {
		j := next(s, i)
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func TestPreTokenizers(t *testing.T) {
	tests := []struct {
		name, text  string
		gpt2, qwen2 []string
	}{
		{"words", "Hello world", []string{"Hello", " world"}, []string{"Hello", " world"}},
		{"two spaces", "a  b", []string{"a", " ", " b"}, []string{"a", " ", " b"}},
		{"space newline", "a \nb", []string{"a", " ", "\n", "b"}, []string{"a", " \n", "b"}},
		{"blank line", "x\n\ny", []string{"x", "\n", "\n", "y"}, []string{"x", "\n\n", "y"}},
		{"mixed run", "a  \n  b", []string{"a", "  \n ", " b"}, []string{"a", "  \n", " ", " b"}},
		{"trailing", "end  ", []string{"end", "  "}, []string{"end", "  "}},
		{"numbers", "it's 42!!", []string{"it", "'s", " 42", "!!"}, []string{"it", "'s", " ", "4", "2", "!!"}},
		{"upper contraction", "I'M", []string{"I", "'", "M"}, []string{"I", "'M"}},
		{"punctuation", "(hello)", []string{"(", "hello", ")"}, []string{"(hello", ")"}},
		{"tab", "\tfoo", []string{"\t", "foo"}, []string{"\tfoo"}},
		{"punct newlines", "foo.\n\nbar", []string{"foo", ".", "\n", "\n", "bar"}, []string{"foo", ".\n\n", "bar"}},
		{"space punct", " !x", []string{" !", "x"}, []string{" !", "x"}},
		{"unicode", "héllo 世界", []string{"héllo", " 世界"}, []string{"héllo", " 世界"}},
		{"wide space", "a\u3000b", []string{"a", "\u3000", "b"}, []string{"a", "\u3000b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := preTokens(tc.text, gpt2Next); !reflect.DeepEqual(got, tc.gpt2) {
				t.Errorf("gpt2 split %q = %q, want %q", tc.text, got, tc.gpt2)
			}
			if got := preTokens(tc.text, qwen2Next); !reflect.DeepEqual(got, tc.qwen2) {
				t.Errorf("qwen2 split %q = %q, want %q", tc.text, got, tc.qwen2)
			}
		})
	}
}

// editTestdata returns testdata/gpt2-merges/tokenizer.json with edit applied,
// written to a fresh folder.
func editTestdata(t *testing.T, edit func(doc map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "gpt2-merges", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadQwen2Style(t *testing.T) {
	path := editTestdata(t, func(doc map[string]any) {
		doc["normalizer"] = map[string]any{"type": "NFC"}
		doc["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": qwen2Pattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}}
	})
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	// Qwen2 splits digits one by one and keeps a tab with the next word; NFC
	// composes e + U+0301 into é (bytes c3 a9, GPT-2 ids 127 and 102).
	tests := []struct {
		text string
		want []int
	}{
		{"12 the", []int{16, 17, 262}},
		{"\tthe", []int{188 + 9, 83, 258}},
		{"e\u0301", []int{127, 102}},
	}
	for _, tc := range tests {
		if got := tok.Encode(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Encode(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestLoadTokenizerErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(doc map[string]any)
		want string
	}{
		{"other split pattern", func(doc map[string]any) {
			doc["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": map[string]any{"Regex": `\s+`}, "behavior": "Isolated"},
				map[string]any{"type": "ByteLevel", "use_regex": false}}}
		}, "pre_tokenizer"},
		{"prefix space", func(doc map[string]any) {
			doc["pre_tokenizer"].(map[string]any)["add_prefix_space"] = true
		}, "add_prefix_space"},
		{"wordpiece", func(doc map[string]any) { doc["model"].(map[string]any)["type"] = "WordPiece" }, "WordPiece"},
		{"dropout", func(doc map[string]any) { doc["model"].(map[string]any)["dropout"] = 0.1 }, "dropout"},
		{"lowercase", func(doc map[string]any) { doc["normalizer"] = map[string]any{"type": "Lowercase"} }, "Lowercase"},
		{"metaspace decoder", func(doc map[string]any) { doc["decoder"] = map[string]any{"type": "Metaspace"} }, "Metaspace"},
		{"vocab not an object", func(doc map[string]any) { doc["model"].(map[string]any)["vocab"] = []any{1} }, "malformed"},
		{"vocab id not a number", func(doc map[string]any) {
			doc["model"].(map[string]any)["vocab"].(map[string]any)["a"] = "x"
		}, "malformed"},
		{"missing byte", func(doc map[string]any) {
			delete(doc["model"].(map[string]any)["vocab"].(map[string]any), "Ġ")
		}, "byte 0x20"},
		{"negative added id", func(doc map[string]any) {
			doc["added_tokens"].([]any)[0].(map[string]any)["id"] = -3
		}, "added token"},
		{"huge id", func(doc map[string]any) {
			doc["model"].(map[string]any)["vocab"].(map[string]any)["Ġthe"] = 1e12
		}, "out of range"},
		{"no eos", func(doc map[string]any) { doc["added_tokens"] = []any{} }, "EOS"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := editTestdata(t, tc.edit)
			_, err := LoadTokenizer(path)
			if err == nil {
				t.Fatal("LoadTokenizer succeeded")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "policy: load tokenizer") || !strings.Contains(msg, tc.want) {
				t.Errorf("err = %q, want a policy error mentioning %q", msg, tc.want)
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join("testdata", "gpt2-merges", "tokenizer.json"))
		path := filepath.Join(t.TempDir(), "tokenizer.json")
		os.WriteFile(path, data[:len(data)/2], 0o644)
		if _, err := LoadTokenizer(path); err == nil {
			t.Error("truncated file loaded")
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, err := LoadTokenizer(filepath.Join(t.TempDir(), "tokenizer.json")); err == nil {
			t.Error("missing file loaded")
		}
	})
}

func TestEOSFromTokenizerConfig(t *testing.T) {
	tests := []struct {
		name, config string
		want         int // -1: error
	}{
		{"string", `{"eos_token": "<think>"}`, 266},
		{"object", `{"eos_token": {"content": "<think>", "special": true}}`, 266},
		{"null", `{"eos_token": null}`, 265},
		{"absent", `{"model_max_length": 10}`, 265},
		{"unknown token", `{"eos_token": "<eos>"}`, -1},
		{"bad json", `{"eos_token": `, -1},
		{"bad type", `{"eos_token": 7}`, -1},
	}
	data, err := os.ReadFile(filepath.Join("testdata", "gpt2-merges", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644)
			os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(tc.config), 0o644)
			tok, err := LoadTokenizer(filepath.Join(dir, "tokenizer.json"))
			switch {
			case tc.want < 0 && err == nil:
				t.Errorf("loaded with EOS %d, want an error", tok.EOS())
			case tc.want >= 0 && err != nil:
				t.Errorf("err = %v", err)
			case tc.want >= 0 && tok.EOS() != tc.want:
				t.Errorf("EOS = %d, want %d", tok.EOS(), tc.want)
			}
		})
	}
}
