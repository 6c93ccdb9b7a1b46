// Package datadir finds the real benchmark files, for the commands and
// for the tests that need them.
//
// Commands follow one rule (Dir): the -data flag, else $ARTIST_DATA, else
// data/ in the working directory; config paths written as data/... move
// under $ARTIST_DATA too (Path); and a missing file is reported with the
// three ways to provide it (Explain).
//
// The files are not part of the repository: scripts/fetch-data.sh downloads
// them into data/ at the module root. Tests ask for a folder with Require;
// the folder is looked up, in order,
//
//   - under $ARTIST_DATA (a relative path is taken from the module root, the
//     folder that holds go.mod), else
//   - under data/ at the module root, when that folder exists.
//
// When the folder is missing the test is skipped with a message that names
// scripts/fetch-data.sh. With ARTIST_REQUIRE_DATA=1 it fails instead, so that
// a run that is meant to cover the real data can never pass by skipping.
package datadir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Root returns the data folder and whether one was found: $ARTIST_DATA
// (resolved against the module root when relative), else data/ at the
// module root when it exists.
func Root() (string, bool) {
	mod, _ := moduleRoot()
	if env := os.Getenv("ARTIST_DATA"); env != "" {
		if !filepath.IsAbs(env) && mod != "" {
			env = filepath.Join(mod, env)
		}
		return env, true
	}
	if mod == "" {
		return "", false
	}
	d := filepath.Join(mod, "data")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d, true
	}
	return "", false
}

// Required reports whether ARTIST_REQUIRE_DATA asks missing data to fail
// the test rather than skip it.
func Required() bool { return os.Getenv("ARTIST_REQUIRE_DATA") == "1" }

// Require returns the path of rel (slash-separated, for example
// "bfcl_v3" or "aime25/test.jsonl") inside the data folder. When it is
// missing it skips t, or fails it under ARTIST_REQUIRE_DATA=1, with a
// message that says how to get the files.
func Require(t testing.TB, rel string) string {
	t.Helper()
	p, err := Find(rel)
	if err != nil {
		if Required() {
			t.Fatalf("%v (ARTIST_REQUIRE_DATA=1)", err)
			return ""
		}
		t.Skipf("%v", err)
	}
	return p
}

// Find returns the path of rel inside the data folder, or an error that
// says how to get it. A file that the data folder may hold under another
// name (see aliases) is found under either.
func Find(rel string) (string, error) {
	root, ok := Root()
	if !ok {
		return "", fmt.Errorf("benchmark data not found: run scripts/fetch-data.sh (it writes data/ at the module root) or set ARTIST_DATA to a folder that holds %s", rel)
	}
	for _, r := range append([]string{rel}, aliases[rel]...) {
		p := filepath.Join(root, filepath.FromSlash(r))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	how := "run scripts/fetch-data.sh " + root
	for prefix, h := range notFetched {
		if strings.HasPrefix(rel, prefix) {
			how = h
		}
	}
	return "", fmt.Errorf("benchmark data: %s is missing under %s: %s", rel, root, how)
}

// aliases are other names of a file: scripts/fetch-data.sh writes the
// training pool (the MATH train split with extracted answers, which stands
// in for NuminaMath) where the configs read it, and the archived data
// folder names it for what it is.
var aliases = map[string][]string{
	"math_train/math.json": {"math_train_substitute/deepscaler_math_train.json"},
}

// notFetched says how to make the files that scripts/fetch-data.sh does
// not download, by path prefix.
var notFetched = map[string]string{
	"bfcl_v3/conformance":      "the conformance traces are recorded on the reference environments by scripts/record_conformance.py (python3 with mpmath)",
	"bfcl_v3/func_source_code": "scripts/fetch-data.sh reads the reference sources into a temporary folder; fetch them with scripts/derive-bfcl-tables.sh's list (scripts/sources.sh) to keep them",
	"aime25/source":            "scripts/fetch-data.sh reads matharena's AIME 2025 sources into a temporary folder; scripts/sources.sh lists them",
}

// moduleRoot walks up from the working directory to the folder that holds
// go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("datadir: no go.mod above the working directory")
		}
		dir = parent
	}
}
