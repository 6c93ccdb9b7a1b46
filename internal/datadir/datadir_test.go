package datadir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRootResolvesRelativeToModule(t *testing.T) {
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
		t.Fatalf("module root %s has no go.mod", mod)
	}
	t.Setenv("ARTIST_DATA", "some/where")
	got, ok := Root()
	if !ok || got != filepath.Join(mod, "some", "where") {
		t.Errorf("Root() = %q, %v; want %q", got, ok, filepath.Join(mod, "some", "where"))
	}
	abs := t.TempDir()
	t.Setenv("ARTIST_DATA", abs)
	if got, _ := Root(); got != abs {
		t.Errorf("Root() = %q, want %q", got, abs)
	}
}

func TestFindNamesTheFetchScript(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "aime25"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARTIST_DATA", dir)
	if p, err := Find("aime25"); err != nil || p != filepath.Join(dir, "aime25") {
		t.Errorf("Find(aime25) = %q, %v", p, err)
	}
	_, err := Find("bfcl_v3")
	if err == nil || !strings.Contains(err.Error(), "scripts/fetch-data.sh") || !strings.Contains(err.Error(), "bfcl_v3") {
		t.Errorf("Find(bfcl_v3) error = %v; want one naming bfcl_v3 and scripts/fetch-data.sh", err)
	}
}

// fakeTB records how Require ended a test.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeTB) Helper()                        {}
func (f *fakeTB) Skipf(format string, a ...any)  { f.skipped = true; f.msg = format }
func (f *fakeTB) Fatalf(format string, a ...any) { f.failed = true; f.msg = format }

func TestRequireSkipsOrFails(t *testing.T) {
	t.Setenv("ARTIST_DATA", t.TempDir())
	for _, tc := range []struct {
		require    string
		skip, fail bool
	}{{"", true, false}, {"1", false, true}} {
		t.Setenv("ARTIST_REQUIRE_DATA", tc.require)
		f := &fakeTB{}
		Require(f, "math500/test.jsonl")
		if f.skipped != tc.skip || f.failed != tc.fail {
			t.Errorf("ARTIST_REQUIRE_DATA=%q: skipped %v failed %v, want %v %v", tc.require, f.skipped, f.failed, tc.skip, tc.fail)
		}
	}
}

func TestFindAlternative(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "math_train_substitute"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "math_train_substitute", "deepscaler_math_train.json")
	if err := os.WriteFile(want, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ARTIST_DATA", dir)
	if p, err := Find("math_train/math.json"); err != nil || p != want {
		t.Errorf("Find = %q, %v; want %q", p, err, want)
	}
	_, err := Find("bfcl_v3/conformance/base.jsonl")
	if err == nil || !strings.Contains(err.Error(), "record_conformance.py") {
		t.Errorf("Find(conformance) error = %v; want the recorder named", err)
	}
}
