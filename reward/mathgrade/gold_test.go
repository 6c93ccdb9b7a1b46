package mathgrade

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/rollout/format"
)

// goldSource is a folder of benchmark files: path returns the path of a
// file in it, or skips the test when the folder is absent.
type goldSource struct {
	name string
	path func(t testing.TB, rel string) string
	min  int // gold answers in each benchmark, at least
}

var (
	// fixtureGolds: hand-made problems in each benchmark's format
	// (testdata at the module root).
	fixtureGolds = goldSource{"fixture", func(_ testing.TB, rel string) string {
		return filepath.Join("..", "..", "testdata", filepath.FromSlash(rel))
	}, 4}
	// benchmarkGolds: the real benchmark files (internal/datadir).
	benchmarkGolds = goldSource{"benchmark", datadir.Require, 30}
)

// goldCase is one benchmark file of one source.
type goldCase struct {
	src          goldSource
	bench, field string
}

// goldCases lists the files the gold tests read: those of the fixture
// always, those of the benchmark when present.
func goldCases() []goldCase {
	var out []goldCase
	for _, src := range []goldSource{fixtureGolds, benchmarkGolds} {
		for _, bf := range goldFields {
			out = append(out, goldCase{src, bf.bench, bf.field})
		}
	}
	return out
}

// goldFields names the gold answer field of each benchmark file.
var goldFields = []struct{ bench, field string }{
	{"math500", "answer"},
	{"aime24", "answer"},
	{"aime25", "answer"},
	{"amc23", "answer"},
	{"olympiadbench", "final_answer"},
}

// loadGolds returns the gold answers of one benchmark file. A field may be a
// string, a number, a list of strings, or a string holding a Python list
// of strings (OlympiadBench's final_answer); a list gives its elements.
func loadGolds(t testing.TB, src goldSource, bench, field string) []string {
	t.Helper()
	path := src.path(t, bench+"/test.jsonl")
	file, err := os.Open(path)
	if err != nil {
		t.Fatalf("benchmark data: %v", err)
	}
	defer file.Close()
	var golds []string
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		got, err := goldValues(rec[field])
		if err != nil || len(got) == 0 {
			t.Fatalf("%s:%d: field %s: %v", path, line, field, err)
		}
		golds = append(golds, got...)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return golds
}

func goldValues(raw json.RawMessage) ([]string, error) {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.HasPrefix(s, "[") {
			return pythonStrings(s)
		}
		return []string{s}, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	return []string{n.String()}, nil
}

// pythonStrings reads a Python list literal of quoted strings.
func pythonStrings(s string) ([]string, error) {
	var out []string
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("not a list: %q", s)
	}
	rest := strings.TrimSpace(s[1 : len(s)-1])
	for rest != "" {
		q := rest[0]
		if q != '\'' && q != '"' {
			return nil, fmt.Errorf("want a quoted string at %q", rest)
		}
		var b strings.Builder
		i := 1
		for ; i < len(rest) && rest[i] != q; i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
				switch rest[i] {
				case '\\', '\'', '"':
				default:
					b.WriteByte('\\')
				}
			}
			b.WriteByte(rest[i])
		}
		if i == len(rest) {
			return nil, fmt.Errorf("unterminated string in %q", s)
		}
		out = append(out, b.String())
		rest = strings.TrimLeft(strings.TrimSpace(rest[i+1:]), ",")
		rest = strings.TrimSpace(rest)
	}
	return out, nil
}

func TestPythonStrings(t *testing.T) {
	got, err := pythonStrings(`['$\\frac{1}{2}$', "it's", '2']`)
	want := []string{`$\frac{1}{2}$`, "it's", "2"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

// TestBenchmarkGolds grades every gold answer of the five math benchmarks
// equal to itself, to its \boxed{} form, and to what Extract finds in a
// response that boxes it or puts it in an answer block.
func TestBenchmarkGolds(t *testing.T) {
	f := format.DefaultFormat()
	for _, bf := range goldCases() {
		t.Run(bf.src.name+"/"+bf.bench, func(t *testing.T) {
			golds := loadGolds(t, bf.src, bf.bench, bf.field)
			if len(golds) < bf.src.min {
				t.Fatalf("only %d gold answers, want at least %d", len(golds), bf.src.min)
			}
			for i, g := range golds {
				boxed := `\boxed{` + g + `}`
				if !Equal(g, g) {
					t.Errorf("%d: gold %q is not equal to itself", i, g)
				}
				if !Equal(boxed, g) || !Equal(g, boxed) {
					t.Errorf("%d: gold %q is not equal to %q", i, g, boxed)
				}
				for _, r := range []string{"So the final answer is " + boxed + ".", "<think>done</think><answer>" + g + "</answer>"} {
					if got, ok := Extract(r, f); !ok || !Equal(got, g) {
						t.Errorf("%d: Extract(%q) = %q, %v: not equal to gold %q", i, r, got, ok, g)
					}
				}
			}
		})
	}
}

// TestBenchmarkGoldsDistinct guards against leniency: each gold answer is
// graded against the next three golds of its benchmark, which are other
// questions' answers, and must differ from them unless both spell the same
// answer (listed here after checking by hand).
func TestBenchmarkGoldsDistinct(t *testing.T) {
	same := map[[2]string]bool{{"5", "x=5"}: true}
	for _, bf := range goldCases() {
		t.Run(bf.src.name+"/"+bf.bench, func(t *testing.T) {
			golds := loadGolds(t, bf.src, bf.bench, bf.field)
			for i, g := range golds {
				for d := 1; d <= 3; d++ {
					h := golds[(i+d)%len(golds)]
					if normalize(g) == normalize(h) || same[[2]string{g, h}] || same[[2]string{h, g}] {
						continue
					}
					if Equal(g, h) {
						t.Errorf("%d: gold %q graded equal to gold %q", i, g, h)
					}
				}
			}
		})
	}
}

// gradingMix returns the pairs BenchmarkGrade grades: every benchmark gold
// against its boxed form (equal, mostly after normalisation alone) and
// against the next gold of its benchmark (a typical wrong answer); and,
// apart, every pair of testdata/equal.tsv (spellings that need the
// structured comparison). It needs the real benchmark files.
func gradingMix(b *testing.B) (golds, spellings [][2]string) {
	for _, bf := range goldFields {
		gs := loadGolds(b, benchmarkGolds, bf.bench, bf.field)
		for i, g := range gs {
			golds = append(golds, [2]string{`\boxed{` + g + `}`, g}, [2]string{gs[(i+1)%len(gs)], g})
		}
	}
	data, err := os.ReadFile("testdata/equal.tsv")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 3 && !strings.HasPrefix(line, "#") {
			spellings = append(spellings, [2]string{f[1], f[2]})
		}
	}
	return golds, spellings
}

// BenchmarkGrade measures grading throughput in pairs/s: Equal on the
// benchmark golds, on the spellings of testdata/equal.tsv, and on both
// together; and Extract then Equal on responses that end in a boxed answer
// after about 2,000 bytes of reasoning.
func BenchmarkGrade(b *testing.B) {
	golds, spellings := gradingMix(b)
	mix := append(append([][2]string{}, golds...), spellings...)
	for _, c := range []struct {
		name  string
		pairs [][2]string
	}{{"golds", golds}, {"spellings", spellings}, {"mix", mix}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				p := c.pairs[i%len(c.pairs)]
				Equal(p[0], p[1])
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
	f := format.DefaultFormat()
	reasoning := strings.Repeat(`We have $x^2 + y^2 = \frac{1}{2}$, so the sum is \(3\). `, 35)
	responses := make([]string, len(mix))
	for i, p := range mix {
		responses[i] = reasoning + `Therefore the answer is $\boxed{` + p[0] + `}$.`
	}
	b.Run("extract+mix", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			k := i % len(mix)
			if a, ok := Extract(responses[k], f); ok {
				Equal(a, mix[k][1])
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
}
