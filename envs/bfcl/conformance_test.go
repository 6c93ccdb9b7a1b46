package bfcl

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// dataDir is the shared benchmark material, relative to this package.
func dataDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "bfcl_v3")
}

var loaded struct {
	d       *Data
	entries map[string][]Entry
}

func testData(t testing.TB) *Data {
	t.Helper()
	if loaded.d == nil {
		d, err := Load(dataDir(t))
		if err != nil {
			t.Fatal(err)
		}
		loaded.d = d
		loaded.entries = map[string][]Entry{}
	}
	return loaded.d
}

func testEntries(t testing.TB, cat string) []Entry {
	t.Helper()
	d := testData(t)
	if es, ok := loaded.entries[cat]; ok {
		return es
	}
	es, err := d.Entries(cat)
	if err != nil {
		t.Fatal(err)
	}
	loaded.entries[cat] = es
	return es
}

// firstDiff locates the first differing byte for a readable failure.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-150)
	return "\n got: ..." + a[lo:min(len(a), i+150)] + "\nwant: ..." + b[lo:min(len(b), i+150)]
}

func TestConformance(t *testing.T) {
	total := 0
	for _, cat := range Categories {
		byID := map[string]Entry{}
		for _, e := range testEntries(t, cat) {
			byID[e.ID] = e
		}
		f, err := os.Open(filepath.Join(dataDir(t), "conformance", cat+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			want := strings.TrimSpace(sc.Text())
			v, err := DecodeJSON([]byte(want))
			if err != nil {
				t.Fatal(err)
			}
			id := v.(*Dict).Str("id")
			t.Run(id, func(t *testing.T) {
				rec, err := Replay(testData(t), byID[id])
				if err != nil {
					t.Fatal(err)
				}
				got, err := PyJSONUnicode(rec)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("trace differs:%s", firstDiff(got, want))
				}
			})
			total++
		}
		f.Close()
	}
	if total != 80 {
		t.Errorf("replayed %d conformance entries, want 80", total)
	}
}
