package bfcl

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
)

// fixtureDir holds hand-made entries in the benchmark's format, with their
// ground truth, function documentation and conformance traces (see
// testdata/README.md at the module root). It has no table files: Load uses
// the built-in ones.
const fixtureDir = "../../testdata/bfcl_v3"

// source is a folder of BFCL v3 files the whole-benchmark tests run on.
type source struct {
	name string
	// file returns the path of rel (slash-separated, "" for the folder),
	// or skips the test when the folder is absent.
	file        func(t testing.TB, rel string) string
	perCategory map[string]int // entries in each category
	traces      int            // conformance records, all categories
}

// sources: the fixture always; the benchmark when it is present
// (internal/datadir).
var sources = []source{
	{"fixture", func(_ testing.TB, rel string) string { return filepath.Join(fixtureDir, filepath.FromSlash(rel)) },
		map[string]int{"base": 6, "miss_func": 4, "miss_param": 4, "long_context": 4}, 18},
	{"benchmark", func(t testing.TB, rel string) string { return datadir.Require(t, path.Join("bfcl_v3", rel)) },
		map[string]int{"base": 200, "miss_func": 200, "miss_param": 200, "long_context": 200}, 80},
}

// eachSource runs f in one subtest per source.
func eachSource(t *testing.T, f func(t *testing.T, s source, ds *dataSet)) {
	for _, s := range sources {
		t.Run(s.name, func(t *testing.T) { f(t, s, loadSet(t, s.file(t, ""))) })
	}
}

// dataSet is one loaded folder and the entries read from it so far.
type dataSet struct {
	d       *Data
	mu      sync.Mutex
	entries map[string][]Entry
}

var loaded struct {
	mu   sync.Mutex
	sets map[string]*dataSet
}

// loadSet loads a folder once for the whole package.
func loadSet(t testing.TB, dir string) *dataSet {
	t.Helper()
	loaded.mu.Lock()
	defer loaded.mu.Unlock()
	if ds, ok := loaded.sets[dir]; ok {
		return ds
	}
	d, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.sets == nil {
		loaded.sets = map[string]*dataSet{}
	}
	ds := &dataSet{d: d, entries: map[string][]Entry{}}
	loaded.sets[dir] = ds
	return ds
}

// of returns the entries of a category.
func (ds *dataSet) of(t testing.TB, cat string) []Entry {
	t.Helper()
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if es, ok := ds.entries[cat]; ok {
		return es
	}
	es, err := ds.d.Entries(cat)
	if err != nil {
		t.Fatal(err)
	}
	ds.entries[cat] = es
	return es
}

// testData is the fixture, for the tests written against its entries.
func testData(t testing.TB) *Data {
	t.Helper()
	return loadSet(t, fixtureDir).d
}

// testEntries returns a category's fixture entries.
func testEntries(t testing.TB, cat string) []Entry {
	t.Helper()
	return loadSet(t, fixtureDir).of(t, cat)
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

// TestConformance replays every entry that has a trace recorded by the
// reference environments and compares results and states byte for byte.
func TestConformance(t *testing.T) {
	eachSource(t, func(t *testing.T, s source, ds *dataSet) {
		total := 0
		for _, cat := range Categories {
			byID := map[string]Entry{}
			for _, e := range ds.of(t, cat) {
				byID[e.ID] = e
			}
			f, err := os.Open(s.file(t, "conformance/"+cat+".jsonl"))
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
					e, ok := byID[id]
					if !ok {
						t.Fatalf("no entry %s", id)
					}
					rec, err := Replay(ds.d, e)
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
		if total != s.traces {
			t.Errorf("replayed %d conformance entries, want %d", total, s.traces)
		}
	})
}
