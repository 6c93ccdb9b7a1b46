package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
)

// fixtureData holds hand-made benchmark files (testdata at the module
// root): the BFCL v3 entries under bfcl_v3, with conformance traces.
var fixtureData = filepath.Join("..", "..", "testdata")

func bfclDataDir() string { return filepath.Join(fixtureData, "bfcl_v3") }

// TestBFCLReplayMatchesConformance: the replay of an entry is the
// conformance record the reference environments wrote for it, on the
// fixture and, when present, on the benchmark.
func TestBFCLReplayMatchesConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string // the BFCL v3 folder, with conformance traces
	}{
		{"fixture", func(*testing.T) string { return bfclDataDir() }},
		{"benchmark", func(t *testing.T) string {
			datadir.Require(t, "bfcl_v3/conformance/miss_func.jsonl")
			return datadir.Require(t, "bfcl_v3")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			f, err := os.Open(filepath.Join(dir, "conformance", "miss_func.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 16<<20)
			if !sc.Scan() {
				t.Fatal("empty conformance file")
			}
			want := sc.Text()
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{"bfcl", "replay", "-category", "miss_func", "-id", "multi_turn_miss_func_0",
				"-data", dir}, &out, &errb)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if got := strings.TrimSuffix(out.String(), "\n"); got != want {
				t.Errorf("replay differs from the conformance record\n got %.300s\nwant %.300s", got, want)
			}
		})
	}
}

func TestBFCLReplayUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no subcommand", []string{"bfcl"}, 2, "usage"},
		{"bad category", []string{"bfcl", "replay", "-category", "nope"}, 2, "-category must be"},
		{"unknown id", []string{"bfcl", "replay", "-category", "base", "-id", "x", "-data", fixtureData}, 1, `no entry "x"`},
		{"older -data form", []string{"bfcl", "replay", "-category", "base", "-id", "x", "-data", bfclDataDir()}, 1, "-data now names the data root"},
		{"missing data", []string{"bfcl", "replay", "-category", "base", "-data", t.TempDir()}, 1, "scripts/fetch-data.sh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errb.String(), tc.code, tc.want)
			}
		})
	}
}
