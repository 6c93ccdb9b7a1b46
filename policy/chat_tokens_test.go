package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// chatGoldenDir holds the chat renderings of package chat
// (scripts/chat_goldens.mjs) and chatGoldenIDsDir the ids the reference
// tokenizer gives them (scripts/chat_golden_tokens.mjs).
const (
	chatGoldenDir    = "../chat/testdata/golden"
	chatGoldenIDsDir = "../chat/testdata/golden_ids"
)

// TestQwenChatGoldenTokens checks that the Qwen tokenizer encodes every
// chat golden, added tokens included, to the reference ids, and decodes
// those back to the text.
func TestQwenChatGoldenTokens(t *testing.T) {
	tok := qwenTokenizer(t)
	files, err := filepath.Glob(filepath.Join(chatGoldenDir, "*", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	idFiles, err := filepath.Glob(filepath.Join(chatGoldenIDsDir, "*", "*.ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("%d chat goldens, want at least 30", len(files))
	}
	if len(idFiles) != len(files) {
		t.Errorf("%d id files for %d chat goldens: rerun scripts/chat_golden_tokens.mjs", len(idFiles), len(files))
	}
	tests := make([]struct{ name, textFile, idsFile string }, len(files))
	for i, f := range files {
		tmpl := filepath.Base(filepath.Dir(f))
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		tests[i].name = tmpl + "/" + name
		tests[i].textFile = f
		tests[i].idsFile = filepath.Join(chatGoldenIDsDir, tmpl, name+".ids.json")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, err := os.ReadFile(tc.textFile)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(tc.idsFile)
			if err != nil {
				t.Fatalf("%v: rerun scripts/chat_golden_tokens.mjs", err)
			}
			var want []int
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			got := tok.Encode(string(text))
			if !slices.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Errorf("Encode differs from the reference at token %d of %d (want %d):\n got %v\nwant %v",
					i, len(got), len(want), got[i:min(len(got), i+8)], want[i:min(len(want), i+8)])
			}
			// The goldens are in NFC, so decoding gives back their bytes.
			if back := tok.Decode(want); back != string(text) {
				t.Errorf("Decode(reference ids) = %q, want %q", back, text)
			}
		})
	}
}
