// Package datadir finds the real benchmark files for the tests that need
// them.
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
// "bfcl_v3" or "aime25/test.jsonl") inside the data folder. When the data
// folder or rel is missing it skips t, or fails it under
// ARTIST_REQUIRE_DATA=1, with a message that says how to get the files.
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
// says how to get it.
func Find(rel string) (string, error) {
	root, ok := Root()
	if !ok {
		return "", fmt.Errorf("benchmark data not found: run scripts/fetch-data.sh (it writes data/ at the module root) or set ARTIST_DATA to a folder that holds %s", rel)
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("benchmark data: %s is missing under %s: run scripts/fetch-data.sh %s", rel, root, root)
	}
	return p, nil
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
