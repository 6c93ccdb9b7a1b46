package taubench

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/internal/pyval"
)

// conformanceFiles lists the visible conformance traces: domain, split,
// number of records.
var conformanceFiles = []struct {
	domain, split string
	records       int
}{
	{Airline, "test", 10},
	{Retail, "test", 23},
	{Retail, "dev", 4},
	{Retail, "train", 100},
}

// readLines returns the lines of a JSON Lines file.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

var domainCache = map[string]*Domain{}

func loadDomain(t testing.TB, dir, name string) *Domain {
	t.Helper()
	key := dir + "|" + name
	if d, ok := domainCache[key]; ok {
		return d
	}
	d, err := Load(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	domainCache[key] = d
	return d
}

// TestConformance replays every visible conformance record's gold actions
// and compares each observation, the final hash, the changed records and
// the whole record line byte for byte.
func TestConformance(t *testing.T) {
	root := datadir.Require(t, "tau_bench")
	total := 0
	for _, cf := range conformanceFiles {
		d := loadDomain(t, filepath.Join(root, cf.domain), cf.domain)
		tasks, err := LoadTasks(filepath.Join(root, cf.domain, "tasks_"+cf.split+".json"))
		if err != nil {
			t.Fatal(err)
		}
		lines := readLines(t, filepath.Join(root, "conformance", cf.domain+"_"+cf.split+".jsonl"))
		if len(lines) != cf.records {
			t.Errorf("%s_%s: %d records, want %d", cf.domain, cf.split, len(lines), cf.records)
		}
		for _, line := range lines {
			total++
			checkRecord(t, d, tasks, cf.split, line)
		}
		var b strings.Builder
		if err := WriteRecords(&b, d, cf.split, tasks, func(i int) bool { return i%5 == 0 }); err != nil {
			t.Fatal(err)
		}
		if b.String() != strings.Join(lines, "\n")+"\n" {
			t.Errorf("%s_%s: WriteRecords of every fifth task differs from the trace file", cf.domain, cf.split)
		}
	}
	if total != 137 {
		t.Errorf("replayed %d records, want 137", total)
	}
}

func checkRecord(t *testing.T, d *Domain, tasks []Task, split, line string) {
	t.Helper()
	v, err := pyval.DecodeJSON([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := v.(*pyval.Dict)
	idx, _ := want.Get("index")
	i := int(idx.(int64))
	name := d.Name + "_" + split + "_" + pyval.Str(idx)
	t.Run(name, func(t *testing.T) {
		rec, err := Replay(d, split, i, tasks[i])
		if err != nil {
			t.Fatal(err)
		}
		wantActs := want.List("actions")
		if len(wantActs) != len(rec.Actions) {
			t.Fatalf("%d actions, want %d", len(rec.Actions), len(wantActs))
		}
		for j, wa := range wantActs {
			wout := wa.(*pyval.Dict).Str("output")
			if got := rec.Actions[j].Output; got != wout {
				t.Errorf("action %d %s:\n got %s\nwant %s", j, rec.Actions[j].Name, got, wout)
			}
		}
		if rec.DBHash != want.Str("db_hash") {
			t.Errorf("db hash %s, want %s", rec.DBHash, want.Str("db_hash"))
		}
		wantChanged, _ := want.Get("changed")
		if !pyval.Identical(rec.Changed, wantChanged) {
			t.Errorf("changed records differ:\n got %s\nwant %s", pyval.MustJSON(rec.Changed), pyval.MustJSON(wantChanged))
		}
		got, err := rec.JSONLine()
		if err != nil {
			t.Fatal(err)
		}
		if got != line {
			t.Errorf("record line differs from the trace")
		}
	})
}

// TestInitialHashes checks the hash of each unmodified database.
func TestInitialHashes(t *testing.T) {
	root := datadir.Require(t, "tau_bench")
	for _, tc := range []struct{ domain, hash string }{
		{Airline, "4587e6b48ad2b2c4f3e1fecb40aabec7bb2286513273b8f8cec3f5865222f290"},
		{Retail, "5a4b2cb59f4d12dea7e4adff24a7f8fada510ead49372ea4a729a82bbb5f49b5"},
	} {
		t.Run(tc.domain, func(t *testing.T) {
			d := loadDomain(t, filepath.Join(root, tc.domain), tc.domain)
			if got := d.NewEnv().Hash(); got != tc.hash {
				t.Errorf("hash %s, want %s", got, tc.hash)
			}
		})
	}
}
