package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func trainedTokenizer(t *testing.T, corpus []string, merges int) *Tokenizer {
	t.Helper()
	data, err := TrainByteLevelBPE(corpus, merges, isDigit, []string{"<code>", "</code>", "<|endoftext|>"}, "<|endoftext|>")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTrainByteLevelBPE(t *testing.T) {
	corpus := []string{
		"37 boxes hold 4821 nails each. How many nails?<code>fmt.Println(4821 * 37)</code>",
		"12 boxes hold 905 nails each. How many nails?<code>fmt.Println(905 * 12)</code>",
		"Each of 88 bags has 7157 beads. Total beads?<code>fmt.Println(7157 * 88)</code>",
	}
	tok := trainedTokenizer(t, corpus, 20)
	if got := tok.VocabSize(); got != 256+20+3 {
		t.Fatalf("vocab size %d, want %d", got, 256+20+3)
	}
	t.Run("shorter than bytes", func(t *testing.T) {
		tokens, bytes := 0, 0
		for _, s := range corpus {
			tokens += len(tok.Encode(s))
			bytes += len(s)
		}
		if tokens >= bytes*3/4 {
			t.Errorf("%d tokens for %d bytes: merges did not shorten the corpus", tokens, bytes)
		}
	})
	t.Run("digits stay single tokens", func(t *testing.T) {
		for _, s := range []string{"4821", " 905", "x=12345.", "fmt.Println(99 * 7)"} {
			for _, id := range tok.Encode(s) {
				p := tok.Decode([]int{id})
				if strings.ContainsAny(p, "0123456789") && len(p) != 1 {
					t.Errorf("%q: token %q joins a digit with something", s, p)
				}
			}
		}
	})
	t.Run("round trip", func(t *testing.T) {
		for _, s := range append(corpus, "unseen words 1 2 3 \n\t héllo <code>x</code>", "") {
			if got := tok.Decode(tok.Encode(s)); got != s {
				t.Errorf("round trip of %q gave %q", s, got)
			}
		}
	})
	t.Run("specials stay whole", func(t *testing.T) {
		id, ok := tok.TokenID("<code>")
		if !ok {
			t.Fatal("no <code> token")
		}
		ids := tok.Encode("a<code>b")
		if len(ids) != 3 || ids[1] != id {
			t.Errorf("a<code>b encodes to %v", ids)
		}
	})
}

func TestTrainByteLevelBPEDeterministic(t *testing.T) {
	corpus := []string{"the cat sat on the mat", "the hat", "a cat and a hat"}
	a, err := TrainByteLevelBPE(corpus, 10, isDigit, []string{"<e>"}, "<e>")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := TrainByteLevelBPE(corpus, 10, isDigit, []string{"<e>"}, "<e>")
	if string(a) != string(b) {
		t.Fatal("two trainings on the same corpus differ")
	}
	// The corpus runs out of repeated pairs before 1000 merges.
	c, err := TrainByteLevelBPE(corpus, 1000, isDigit, []string{"<e>"}, "<e>")
	if err != nil || len(c) >= 1000*8 {
		t.Fatalf("training did not stop early: %d bytes, %v", len(c), err)
	}
	if _, err := TrainByteLevelBPE(corpus, -1, nil, []string{"<e>"}, "<e>"); err == nil {
		t.Error("negative merges accepted")
	}
}

// TestTrainByteLevelBPEReport: the report hears each learned merge out
// of the asked number, and reporting changes nothing in the result.
func TestTrainByteLevelBPEReport(t *testing.T) {
	corpus := []string{"the cat sat on the mat", "the hat", "a cat and a hat"}
	for _, merges := range []int{5, 1000} {
		var got []int
		data, err := TrainByteLevelBPEReport(corpus, merges, isDigit, []string{"<e>"}, "<e>", func(done, total int) {
			if total != merges {
				t.Errorf("merges %d: report total %d", merges, total)
			}
			got = append(got, done)
		})
		if err != nil {
			t.Fatal(err)
		}
		plain, _ := TrainByteLevelBPE(corpus, merges, isDigit, []string{"<e>"}, "<e>")
		if string(data) != string(plain) {
			t.Errorf("merges %d: reporting changed the tokenizer", merges)
		}
		for i, d := range got {
			if d != i+1 {
				t.Fatalf("merges %d: reports %v, want 1, 2, ...", merges, got)
			}
		}
		if merges == 5 && len(got) != 5 || merges == 1000 && (len(got) == 0 || len(got) >= 1000) {
			t.Errorf("merges %d: %d reports", merges, len(got))
		}
	}
}
