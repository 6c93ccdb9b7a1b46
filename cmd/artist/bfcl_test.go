package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func bfclDataDir() string { return filepath.Join("..", "..", "..", "shared", "data", "bfcl_v3") }

func TestBFCLReplayMatchesConformance(t *testing.T) {
	f, err := os.Open(filepath.Join(bfclDataDir(), "conformance", "miss_func.jsonl"))
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
		"-data", bfclDataDir()}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != want {
		t.Errorf("replay differs from the conformance record\n got %.300s\nwant %.300s", got, want)
	}
}

func TestBFCLReplayUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"no subcommand", []string{"bfcl"}, 2},
		{"bad category", []string{"bfcl", "replay", "-category", "nope"}, 2},
		{"unknown id", []string{"bfcl", "replay", "-category", "base", "-id", "x", "-data", bfclDataDir()}, 1},
		{"missing data", []string{"bfcl", "replay", "-category", "base", "-data", t.TempDir()}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), tc.args, &out, &errb); code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errb.String())
			}
		})
	}
}
