package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// cancelOn is a writer that cancels a context once the text written to
// it contains want.
type cancelOn struct {
	mu     sync.Mutex
	b      strings.Builder
	want   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if strings.Contains(c.b.String(), c.want) {
		c.cancel()
	}
	return len(p), nil
}

// TestTrainInterruptThenResume stops a run as Ctrl-C does, after its
// first GRPO step: it names the checkpoint it resumes from and the command
// that resumes it, and that command finishes the run from there.
func TestTrainInterruptThenResume(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOn{want: "step 1/3", cancel: cancel}
	var errb syncBuffer
	args := []string{"train", "-config", "testdata/tiny.yaml", "-set", "run_dir=" + dir, "-set", "grpo.steps=3", "-set", "checkpoint.every=1"}
	code := run(ctx, args, out, &errb)
	stderr := errb.String()
	if code != 1 || !strings.Contains(stderr, "interrupt: stopping at the next safe point") {
		t.Fatalf("exit %d, stderr %q; want an interrupted run", code, stderr)
	}
	ckpt := filepath.Join(dir, "checkpoints", "step-000001")
	want := "the run resumes from its latest checkpoint, " + ckpt + "; to resume:\n  " + progName(os.Args[0]) + " train -config testdata/tiny.yaml -set run_dir=" + dir + " -set grpo.steps=3 -set checkpoint.every=1"
	if !strings.Contains(stderr, want) {
		t.Fatalf("stderr %q\nlacks %q", stderr, want)
	}
	code, stdout, stderr2 := runCLI(args...)
	if code != 0 || !strings.Contains(stdout, "from step-000001 (GRPO step 1)") || !strings.Contains(stdout, "step 3/3") || strings.Contains(stdout, "step 1/3") {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", code, stdout, stderr2)
	}
}

func TestResumeCommand(t *testing.T) {
	cases := []struct {
		bin  string
		sets sets
		want string
	}{
		{"./artist", nil, "./artist train -config c.yaml"},
		{"/tmp/go-build123/b001/exe/artist", sets{"seed=2"}, "go run ./cmd/artist train -config c.yaml -set seed=2"},
		{"artist", sets{`prompt.system=be brief`, "x='y'"}, `artist train -config c.yaml -set 'prompt.system=be brief' -set 'x='\''y'\'''`},
	}
	for i, c := range cases {
		if got := resumeCommand(c.bin, "c.yaml", c.sets); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
}

func TestTrainNamesTheEarlierStage(t *testing.T) {
	code, _, stderr := runCLI("train", "-config", "../../configs/tiny-fc-curriculum.yaml", "-set", "run_dir="+t.TempDir())
	if code != 1 || !strings.Contains(stderr, "written by the run of ../../configs/tiny-fc-synth.yaml; train that first") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestServeMissingCheckpoint(t *testing.T) {
	code, _, stderr := runCLI("serve", "-checkpoint", filepath.Join(t.TempDir(), "nope"))
	if code != 1 || !strings.Contains(stderr, "does not exist") || strings.Contains(stderr, "manifest") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestTrainWithoutWarmStartSaysInitial(t *testing.T) {
	code, stdout, stderr := runCLI("train", "-config", "testdata/tiny.yaml", "-set", "run_dir="+t.TempDir(), "-set", "warmstart.steps=0", "-set", "grpo.steps=1")
	if code != 0 || !strings.Contains(stdout, "\ninitial eval: accuracy") || !strings.Contains(stdout, "(initial ") || strings.Contains(stdout, "warm") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
