package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: artist COMMAND"},
		{[]string{"fly"}, 2, `unknown command "fly"`},
		{[]string{"train"}, 2, "-config FILE is required"},
		{[]string{"train", "-config", "testdata/tiny.yaml", "-set", "grpo.stepz=1"}, 1, `unknown key "grpo.stepz"`},
		{[]string{"train", "-config", "testdata/missing.yaml"}, 1, "no such file"},
		{[]string{"eval"}, 2, "-checkpoint DIR is required"},
		{[]string{"eval", "-checkpoint", "x", "-n", "0"}, 2, "-n 0: must be >= 1"},
		{[]string{"eval", "-checkpoint", "x", "-temperature", "-1"}, 2, "-temperature -1: must be >= 0"},
		{[]string{"eval", "-checkpoint", "x", "-parallel", "0"}, 2, "-parallel 0: must be >= 1"},
		{[]string{"serve", "-checkpoint", "x", "-addr", "8080"}, 2, `-addr "8080"`},
		{[]string{"sample"}, 2, "-checkpoint DIR is required"},
		{[]string{"eval", "-checkpoint", "testdata"}, 1, "no tokenizer.json"},
	}
	for i, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("case %d %v: exit %d, stderr %q; want exit %d and %q", i, c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestTrainEvalSample runs the three commands end to end on a tiny run.
func TestTrainEvalSample(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCLI("train", "-config", "testdata/tiny.yaml", "-set", "run_dir="+dir)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"warmstart 4/4 loss", "step 1/2 reward", "tok/s", "eta", "summary: "} {
		if !strings.Contains(out, want) {
			t.Errorf("train output lacks %q:\n%s", want, out)
		}
	}
	type result struct {
		Accuracy  *float64 `json:"accuracy"`
		ToolCalls *float64 `json:"tool_calls"`
	}
	var sum struct {
		WarmStart result   `json:"warmstart"`
		Final     result   `json:"final"`
		WallS     *float64 `json:"wall_s"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil || sum.WarmStart.Accuracy == nil || sum.Final.ToolCalls == nil || sum.WallS == nil {
		t.Fatalf("summary.json lacks the required keys: %s (%v)", b, err)
	}
	ckpt := filepath.Join(dir, "checkpoints", "step-000002")

	code, out, stderr = runCLI("eval", "-checkpoint", ckpt, "-limit", "4", "-temperature", "0")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, stderr)
	}
	var res struct{ N int }
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.N != 4 {
		t.Fatalf("eval output %q: %v", out, err)
	}
	// Greedy evaluation is reproducible.
	_, again, _ := runCLI("eval", "-checkpoint", ckpt, "-limit", "4", "-temperature", "0")
	if again != out {
		t.Errorf("greedy eval differs between runs: %s vs %s", out, again)
	}

	code, out, stderr = runCLI("sample", "-checkpoint", ckpt, "-n", "2")
	if code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	if strings.Count(out, "=== arith-") != 2 || !strings.Contains(out, "stop ") {
		t.Errorf("sample output:\n%s", out)
	}
}

func TestHelpAndVersion(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"help"}, 0, "usage: artist COMMAND"},
		{[]string{"-h"}, 0, "usage: artist COMMAND"},
		{[]string{"--help"}, 0, "usage: artist COMMAND"},
		{[]string{"help", "tokenize"}, 0, "-tokenizer FILE"},
		{[]string{"tokenize", "-h"}, 0, "-tokenizer FILE"},
		{[]string{"version"}, 0, "artist github.com/artist-rl/artist"},
		{[]string{"version", "x"}, 2, "takes no arguments"},
	}
	for i, c := range cases {
		code, stdout, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("case %d %v: exit %d, output %q; want exit %d and %q", i, c.args, code, stdout+stderr, c.code, c.want)
		}
	}
	_, stdout, _ := runCLI("help")
	for _, c := range commands {
		if !strings.Contains(stdout, "\n  "+c.name+" ") && !strings.Contains(stdout, "\n  "+c.name+":") {
			t.Errorf("help does not list %s:\n%s", c.name, stdout)
		}
	}
	for _, sub := range []string{"derive bfcl", "aime25", "taubench -src"} {
		if !strings.Contains(stdout, sub) {
			t.Errorf("help lacks %q", sub)
		}
	}
}

func TestVersionLine(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Path: "github.com/artist-rl/artist", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "14baa93"}, {Key: "vcs.time", Value: "2026-12-01T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	want := "artist github.com/artist-rl/artist v0.3.0 revision 14baa93 2026-12-01T20:00:00Z (modified), go1.26"
	if got := versionLine(info); got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
	info.Settings = nil
	if got := versionLine(info); !strings.Contains(got, "no VCS revision recorded") {
		t.Errorf("without VCS fields: %q", got)
	}
}

// TestStopReason: a run stopped by SIGTERM (mpirun ending the job after
// another rank failed) does not claim a Ctrl-C.
func TestStopReason(t *testing.T) {
	cases := []struct {
		cause error
		want  string
	}{
		{signalCause{syscall.SIGTERM}, "terminated (SIGTERM: under mpirun, another rank failed"},
		{signalCause{os.Interrupt}, "interrupt: stopping at the next safe point (press Ctrl-C again"},
		{context.Canceled, "interrupt: stopping"},
	}
	for i, c := range cases {
		if got := stopReason(c.cause); !strings.HasPrefix(got, c.want) {
			t.Errorf("case %d: %q, want it to start %q", i, got, c.want)
		}
	}
}
