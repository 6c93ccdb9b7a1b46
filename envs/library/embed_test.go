package library

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// keywordEmbedder embeds a text as the counts of its keywords, one
// dimension each, and counts its calls.
type keywordEmbedder struct {
	keys  []string
	calls atomic.Int64
}

func (e *keywordEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	e.calls.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v := make([]float32, len(e.keys))
	for j, k := range e.keys {
		v[j] = float32(strings.Count(strings.ToLower(text), k))
	}
	return v, nil
}

// embedLibrary holds demonstrations whose descriptions carry the
// keywords: "apple" and "coin" for arith, "apple" and "word" for
// strings; "twin-a" and "twin-b" embed alike.
const embedLibrary = `{"id":"a-apple","family":"arith","description":"apple sums","input":"3 + 4 apples?","steps":[],"answer":"7"}
{"id":"a-coin","family":"arith","description":"coin counting","input":"How many coins?","steps":[],"answer":"2"}
{"id":"s-apple","family":"strings","description":"apple spelling","input":"Spell apple backwards.","steps":[],"answer":"elppa"}
{"id":"s-word","family":"strings","description":"word reversal","input":"Reverse the word.","steps":[],"answer":"drow"}
{"id":"twin-a","family":"arith","description":"coin apple","input":"x","steps":[],"answer":"1"}
{"id":"twin-b","family":"arith","description":"apple coin","input":"x","steps":[],"answer":"1"}`

// ids lists the selected demonstrations, or Select's error.
func ids(ms []Match, err error) []string {
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s/%v", m.Demo.ID, m.Transfer))
	}
	return out
}

func TestSelectEmbed(t *testing.T) {
	lib, err := Parse(strings.NewReader(embedLibrary), "embed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, family, text string
		k                  int
		want               []string
	}{
		// "apple": a-apple and s-apple score 1, the twins 1/√2, the rest
		// 0; s-apple, of another family, comes after the family's.
		{"family first", "arith", "apple", 2, []string{"a-apple/false", "twin-a/false"}},
		{"twins tie in file order", "arith", "apple", 3, []string{"a-apple/false", "twin-a/false", "twin-b/false"}},
		{"similar transfer before dissimilar family", "arith", "apple", 5,
			[]string{"a-apple/false", "twin-a/false", "twin-b/false", "s-apple/true", "a-coin/false"}},
		{"k over the library", "arith", "apple", 50,
			[]string{"a-apple/false", "twin-a/false", "twin-b/false", "s-apple/true", "a-coin/false", "s-word/true"}},
		{"rest of the family before the rest", "strings", "word", 3, []string{"s-word/false", "s-apple/false", "a-apple/true"}},
		{"cross-family fill-in", "strings", "coin", 4, []string{"a-coin/true", "twin-a/true", "twin-b/true", "s-apple/false"}},
		{"no similar one keeps file order, family first", "strings", "nothing here", 6,
			[]string{"s-apple/false", "s-word/false", "a-apple/true", "a-coin/true", "twin-a/true", "twin-b/true"}},
		{"own input left out", "strings", "Reverse the word.", 1, []string{"s-apple/false"}},
	}
	for i, c := range cases {
		e := &keywordEmbedder{keys: []string{"apple", "coin", "word"}}
		got := ids(NewEmbedIndex(lib, e).Select(context.Background(), c.family, c.text, c.k))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("case %d (%s): got %v, want %v", i, c.name, got, c.want)
		}
	}
}

// TestSelectEmbedCachesDemos checks the demonstrations are embedded once
// per index, and the task on every Select.
func TestSelectEmbedCachesDemos(t *testing.T) {
	lib, err := Parse(strings.NewReader(embedLibrary), "embed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := &keywordEmbedder{keys: []string{"apple", "coin"}}
	ix := NewEmbedIndex(lib, e)
	for range 3 {
		if _, err := ix.Select(context.Background(), "arith", "coin", 2); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := e.calls.Load(), int64(len(lib.Demos)+3); got != want {
		t.Errorf("%d Embed calls, want %d (each demonstration once, the task three times)", got, want)
	}
	// After Reembed the next Select embeds every demonstration again,
	// with the embedder as it is now: "coin" moves to another dimension.
	e.keys = []string{"coin", "apple"}
	ix.Reembed()
	got := ids(ix.Select(context.Background(), "arith", "coin", 1))
	if n, want := e.calls.Load(), int64(2*len(lib.Demos)+4); n != want {
		t.Errorf("after Reembed: %d Embed calls, want %d", n, want)
	}
	if want := []string{"a-coin/false"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after Reembed: %v, want %v", got, want)
	}
	NewIndex(lib).Reembed() // a no-op for BM25
}

// TestSelectEmbedConcurrent selects from several goroutines at once
// (run with -race): each gets the ranking of a lone Select, and the
// demonstrations are still embedded once.
func TestSelectEmbedConcurrent(t *testing.T) {
	lib, err := Parse(strings.NewReader(embedLibrary), "embed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := ids(NewEmbedIndex(lib, &keywordEmbedder{keys: []string{"apple", "coin"}}).Select(context.Background(), "arith", "coin apple", 4))
	e := &keywordEmbedder{keys: []string{"apple", "coin"}}
	ix := NewEmbedIndex(lib, e)
	var wg sync.WaitGroup
	got := make([][]string, 8)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[g] = ids(ix.Select(context.Background(), "arith", "coin apple", 4))
		}()
	}
	wg.Wait()
	for g := range got {
		if !reflect.DeepEqual(got[g], want) {
			t.Errorf("goroutine %d: %v, want %v", g, got[g], want)
		}
	}
	if n := e.calls.Load(); n != int64(len(lib.Demos)+len(got)) {
		t.Errorf("%d Embed calls, want %d", n, len(lib.Demos)+len(got))
	}
}

func TestCosine(t *testing.T) {
	cases := []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{[]float32{1, 0}, []float32{0, 5}, 0},
		{[]float32{1, 1}, []float32{-2, -2}, -1},
		{[]float32{0, 0}, []float32{1, 1}, 0},
		{[]float32{3, 4}, []float32{4, 3}, 24.0 / 25},
	}
	for i, c := range cases {
		if got := Cosine(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("case %d: Cosine(%v, %v) = %v, want %v", i, c.a, c.b, got, c.want)
		}
	}
}

func TestParseSelectMode(t *testing.T) {
	cases := []struct {
		in   string
		want SelectMode
		err  string
	}{
		{"", SelectBM25, ""},
		{"bm25", SelectBM25, ""},
		{"embed", SelectEmbed, ""},
		{"cosine", "", `selection mode "cosine": want bm25 or embed`},
	}
	for i, c := range cases {
		got, err := ParseSelectMode(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("case %d: err %v, want %q", i, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("case %d: %q, %v; want %q", i, got, err, c.want)
		}
	}
}

// TestSelectEmbedStopsWithContext: a Select whose context has ended
// returns its error and keeps no embedding, so the next Select embeds
// every demonstration and ranks as a first one would.
func TestSelectEmbedStopsWithContext(t *testing.T) {
	lib, err := Parse(strings.NewReader(embedLibrary), "embed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	e := &keywordEmbedder{keys: []string{"apple", "coin"}}
	ix := NewEmbedIndex(lib, e)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Select(ctx, "arith", "coin", 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Select of an ended context: %v, want context.Canceled", err)
	}
	before := e.calls.Load()
	got := ids(ix.Select(context.Background(), "arith", "coin", 1))
	if want := []string{"a-coin/false"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after a failed Select: %v, want %v", got, want)
	}
	if n, want := e.calls.Load()-before, int64(len(lib.Demos)+1); n != want {
		t.Errorf("after a failed Select: %d Embed calls, want %d (every demonstration again, and the task)", n, want)
	}
}
