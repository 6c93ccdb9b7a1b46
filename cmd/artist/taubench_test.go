package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

func TestTauBenchReplay(t *testing.T) {
	const data = "../../testdata" // the data root, which holds tau_bench/
	want, err := os.ReadFile(data + "/tau_bench/conformance/retail_test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(want), "\n")
	for i, tc := range []struct {
		args []string
		want string
		err  bool
	}{
		{[]string{"replay", "-env", "retail", "-data", data}, string(want), false},
		{[]string{"replay", "-env", "retail", "-index", "2", "-data", data}, lines[2], false},
		{[]string{"replay", "-env", "retail", "-every", "2", "-data", data}, lines[0] + lines[2], false},
		{[]string{"replay", "-env", "retail", "-index", "9", "-data", data}, "", true},
		{[]string{"replay", "-env", "airline", "-split", "train", "-data", data}, "", true},
		{[]string{"replay", "-env", "retail", "-index", "2", "-data", data + "/tau_bench"}, lines[2], false}, // the older form
		{[]string{"replay", "-env", "retail", "-data", t.TempDir()}, "", true},
		{[]string{"replay", "-env", "bank"}, "", true},
		{[]string{"list"}, "", true},
	} {
		var out, errOut bytes.Buffer
		err := runTauBench(context.Background(), tc.args, &out, &errOut)
		if (err != nil) != tc.err || out.String() != tc.want {
			t.Errorf("case %d: err %v (stderr %q), output %d bytes, want %d", i, err, errOut.String(), out.Len(), len(tc.want))
		}
		if old := strings.HasSuffix(tc.args[len(tc.args)-1], "/tau_bench"); old != strings.Contains(errOut.String(), "-data now names the data root") {
			t.Errorf("case %d: stderr %q: the note about the older -data form should appear exactly for it", i, errOut.String())
		}
	}
}
