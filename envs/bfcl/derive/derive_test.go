package derive

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/internal/datadir"
)

// TestTablesMatchReference derives both files from the real sources and
// compares them, as JSON values (key order and int/float kept), with the
// published derived files and with the copies shipped in envs/bfcl/tables.
func TestTablesMatchReference(t *testing.T) {
	src := datadir.Require(t, "bfcl_v3/func_source_code")
	tables, ext, err := Tables(src)
	if err != nil {
		t.Fatal(err)
	}
	ref := datadir.Require(t, "bfcl_v3")
	for _, c := range []struct {
		name string
		got  []byte
	}{{"reference_tables.json", tables}, {"long_context_extensions.json", ext}} {
		for _, want := range []string{filepath.Join(ref, c.name), filepath.Join("..", "tables", c.name)} {
			t.Run(c.name+" vs "+filepath.Base(filepath.Dir(want)), func(t *testing.T) {
				wantB, err := os.ReadFile(want)
				if err != nil {
					t.Fatal(err)
				}
				if d := jsonDiff(t, c.got, wantB); d != "" {
					t.Fatalf("derived %s differs from %s: %s", c.name, want, d)
				}
				if !bytes.Equal(c.got, wantB) {
					t.Errorf("derived %s is JSON-equal to %s but not byte-equal", c.name, want)
				}
			})
		}
	}
}

// TestTablesLoad checks that package bfcl accepts the derived files.
func TestTablesLoad(t *testing.T) {
	src := datadir.Require(t, "bfcl_v3/func_source_code")
	tables, ext, err := Tables(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"reference_tables.json": tables, "long_context_extensions.json": ext} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := bfcl.Load(dir); err != nil {
		t.Fatal(err)
	}
}

// TestTablesMissingSource names the missing file.
func TestTablesMissingSource(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Tables(dir)
	if err == nil || !strings.Contains(err.Error(), SourceFiles()[0]) {
		t.Fatalf("Tables on an empty folder: %v; want an error naming %s", err, SourceFiles()[0])
	}
}

// jsonDiff decodes both texts and returns "" when they are the same JSON
// value, else the path of the first difference.
func jsonDiff(t *testing.T, got, want []byte) string {
	t.Helper()
	g, err := bfcl.DecodeJSON(got)
	if err != nil {
		t.Fatalf("derived text: %v", err)
	}
	w, err := bfcl.DecodeJSON(want)
	if err != nil {
		t.Fatalf("reference text: %v", err)
	}
	return valueDiff(g, w, "$")
}

// valueDiff compares decoded JSON values strictly: same types (int64 is
// not float64), same keys in the same order, same list lengths.
func valueDiff(g, w any, path string) string {
	switch wv := w.(type) {
	case *bfcl.Dict:
		gv, ok := g.(*bfcl.Dict)
		if !ok {
			return fmt.Sprintf("%s: got %T, want an object", path, g)
		}
		gk, wk := gv.Keys(), wv.Keys()
		for i := 0; i < len(gk) || i < len(wk); i++ {
			if i >= len(gk) || i >= len(wk) || gk[i] != wk[i] {
				return fmt.Sprintf("%s: keys differ at position %d: got %v, want %v", path, i, gk, wk)
			}
			a, _ := gv.Get(gk[i])
			b, _ := wv.Get(wk[i])
			if d := valueDiff(a, b, fmt.Sprintf("%s[%q]", path, gk[i])); d != "" {
				return d
			}
		}
		return ""
	case []any:
		gv, ok := g.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %T, want a list", path, g)
		}
		if len(gv) != len(wv) {
			return fmt.Sprintf("%s: got %d items, want %d", path, len(gv), len(wv))
		}
		for i := range wv {
			if d := valueDiff(gv[i], wv[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if fmt.Sprintf("%T", g) != fmt.Sprintf("%T", w) || g != w {
		return fmt.Sprintf("%s: got %T %v, want %T %v", path, g, g, w, w)
	}
	return ""
}

func TestValueDiffIsStrict(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{`{"a": 1, "b": [1.0, "x"]}`, `{"a": 1, "b": [1.0, "x"]}`, true},
		{`{"a": 50}`, `{"a": 50.0}`, false},
		{`{"a": 1, "b": 2}`, `{"b": 2, "a": 1}`, false},
		{`[1, 2]`, `[1, 2, 3]`, false},
		{`{"a": "x"}`, `{"a": "y"}`, false},
		{`{"a": null}`, `{"a": false}`, false},
	} {
		if d := jsonDiff(t, []byte(c.a), []byte(c.b)); (d == "") != c.same {
			t.Errorf("jsonDiff(%s, %s) = %q; want same=%v", c.a, c.b, d, c.same)
		}
	}
}
