package bfcl

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// The dynamic-typing table: calls the ground truth never makes, chiefly a
// float (or a bool) where the reference declares an int parameter, with
// the results and states the reference environments gave. The cases are
// testdata/dynamic_typing_cases.jsonl (id, involved_classes,
// initial_config, turns); the traces, testdata/dynamic_typing.jsonl, were
// recorded from them with
//
//	python3 scripts/record_conformance.py REFERENCE --cases envs/bfcl/testdata/dynamic_typing_cases.jsonl > envs/bfcl/testdata/dynamic_typing.jsonl
//
// (REFERENCE as in that script; Python 3.11.7 and mpmath 1.3.0, the
// runtime of the benchmark's own traces).

// readJSONLines decodes every line of a JSON Lines file.
func readJSONLines(t *testing.T, path string) []*Dict {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*Dict
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		v, err := DecodeJSON(sc.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v.(*Dict))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// caseEntry is the entry that replays a dynamic-typing case.
func caseEntry(c *Dict) Entry {
	e := Entry{ID: c.Str("id"), Category: "cases", InitialConfig: c.Dict("initial_config")}
	for _, cl := range c.List("involved_classes") {
		e.InvolvedClasses = append(e.InvolvedClasses, cl.(string))
	}
	for _, turn := range c.List("turns") {
		var calls []string
		for _, call := range turn.([]any) {
			calls = append(calls, call.(string))
		}
		e.GroundTruth = append(e.GroundTruth, calls)
	}
	return e
}

// TestDynamicTyping replays the dynamic-typing table and compares every
// result string and every state with the reference's, byte for byte.
func TestDynamicTyping(t *testing.T) {
	d := testData(t)
	cases := readJSONLines(t, "testdata/dynamic_typing_cases.jsonl")
	traces := readJSONLines(t, "testdata/dynamic_typing.jsonl")
	if len(cases) != len(traces) || len(cases) < 7 {
		t.Fatalf("%d cases, %d traces: record the traces again (see the comment above)", len(cases), len(traces))
	}
	for i, c := range cases {
		want := traces[i]
		t.Run(c.Str("id"), func(t *testing.T) {
			if want.Str("id") != c.Str("id") {
				t.Fatalf("trace %d is of %s: record the traces again", i, want.Str("id"))
			}
			got, err := Replay(d, caseEntry(c))
			if err != nil {
				t.Fatal(err)
			}
			compareTurns(t, got, want)
			g, _ := PyJSONUnicode(got)
			w, _ := PyJSONUnicode(want)
			if g != w {
				t.Errorf("trace differs:%s", firstDiff(g, w))
			}
		})
	}
}

// compareTurns reports each call whose result differs, for a readable
// failure.
func compareTurns(t *testing.T, got, want *Dict) {
	t.Helper()
	gt, wt := got.List("turns"), want.List("turns")
	for i := range min(len(gt), len(wt)) {
		gr, wr := gt[i].(*Dict).List("results"), wt[i].(*Dict).List("results")
		calls := wt[i].(*Dict).List("calls")
		for j := range min(len(gr), len(wr)) {
			if gr[j] != wr[j] {
				t.Errorf("turn %d: %s\n got: %s\nwant: %s", i, calls[j], gr[j], wr[j])
			}
		}
	}
}
