package toollib

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// retrievalQuery is one line of testdata/retrieval/queries.jsonl: a task
// as a user would put it, and the tool that should rank first for it.
type retrievalQuery struct {
	Query string `json:"query"`
	Tool  string `json:"tool"`
}

// retrievalSet reads the retrieval tools (each verified as it is added,
// approved) and queries.
func retrievalSet(t testing.TB) (*DB, []Tool, []retrievalQuery) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "retrieval", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, 5*time.Second)
	d := openTemp(t)
	var tools []Tool
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tool, err := ParseTool(string(src))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, err := d.Add(context.Background(), s, tool, Provenance{Source: "human"}, Approved); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		tools = append(tools, tool)
	}
	f, err := os.Open(filepath.Join("testdata", "retrieval", "queries.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []retrievalQuery
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var q retrievalQuery
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("queries.jsonl line %d: %v", len(qs)+1, err)
		}
		if _, err := d.ByName(context.Background(), q.Tool); err != nil {
			t.Fatalf("queries.jsonl line %d: %v", len(qs)+1, err)
		}
		qs = append(qs, q)
	}
	return d, tools, qs
}

// top1 returns the share of queries whose tool rank returns first, and
// the queries it missed.
func top1(qs []retrievalQuery, rank func(query string) string) (float64, []string) {
	hits := 0
	var missed []string
	for _, q := range qs {
		if got := rank(q.Query); got == q.Tool {
			hits++
		} else {
			missed = append(missed, q.Tool+" <- "+q.Query+" (got "+got+")")
		}
	}
	return float64(hits) / float64(len(qs)), missed
}

func ftsTop1(t testing.TB, d *DB) func(string) string {
	return func(q string) string {
		recs, err := d.Search(context.Background(), q, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			return ""
		}
		return recs[0].Tool.Name
	}
}

func bm25Top1(tools []Tool) func(string) string {
	ix := newBM25(tools)
	return func(q string) string {
		if got := ix.search(q, 1); len(got) > 0 {
			return got[0].Name
		}
		return ""
	}
}

// ftsTop1Floor is the share of retrieval queries that FTS5 must rank
// right: 27 of 38, one under the 28 (0.737) it ranked right when the set
// was written, as many as the previous BM25 over name and doc. The misses
// are words the tool's doc lacks ("backwards" for reverse, "arrangements"
// for permutations); stemming wins some ("solve" finds "solves") and loses
// some ("prime" counts twice in "the prime factorization ... primes").
const ftsTop1Floor = 27.0 / 38

func TestRetrievalQuality(t *testing.T) {
	d, tools, qs := retrievalSet(t)
	distinct := map[string]bool{}
	for _, q := range qs {
		distinct[q.Tool] = true
	}
	if len(tools) < 30 || len(qs) < 30 {
		t.Fatalf("%d tools and %d queries; the measurement needs at least 30 of each", len(tools), len(qs))
	}
	fts, ftsMissed := top1(qs, ftsTop1(t, d))
	bm25, bm25Missed := top1(qs, bm25Top1(tools))
	t.Logf("top-1 over %d queries, %d tools (%d of them expected): FTS5 %.3f, BM25 %.3f", len(qs), len(tools), len(distinct), fts, bm25)
	for _, m := range ftsMissed {
		t.Logf("FTS5 missed %s", m)
	}
	for _, m := range bm25Missed {
		t.Logf("BM25 missed %s", m)
	}
	if fts < ftsTop1Floor {
		t.Errorf("FTS5 top-1 %.3f, below the floor %.2f", fts, ftsTop1Floor)
	}
}

// BenchmarkRetrieval reports the top-1 share of both rankings on the
// retrieval set and the time of one FTS5 search.
func BenchmarkRetrieval(b *testing.B) {
	d, tools, qs := retrievalSet(b)
	fts, _ := top1(qs, ftsTop1(b, d))
	bm25, _ := top1(qs, bm25Top1(tools))
	b.ResetTimer()
	for i := range b.N {
		if _, err := d.Search(context.Background(), qs[i%len(qs)].Query, 3); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(fts, "fts5_top1")
	b.ReportMetric(bm25, "bm25_top1")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "searches/s")
}
