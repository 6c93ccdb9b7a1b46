package arith

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
)

// TestPhaseTruth: every operation's task has subtasks naming its numbers
// and one tool, named unlike the seed tool it matches, whose source
// verifies in the sandbox and computes the task's answer.
func TestPhaseTruth(t *testing.T) {
	sb, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	rng := rand.New(rand.NewSource(5))
	for _, op := range allOps {
		t.Run(string(op), func(t *testing.T) {
			p := Random(rng, op)
			truth, ok := Family{}.PhaseTruth(p.Task())
			if !ok {
				t.Fatalf("no ground truth for %s", p.ID())
			}
			if len(truth.Subtasks) == 0 || !strings.Contains(strings.Join(truth.Subtasks, " "), fmt.Sprint(p.A)) {
				t.Errorf("subtasks %q do not name %d", truth.Subtasks, p.A)
			}
			if len(truth.Tools) != 1 {
				t.Fatalf("%d tools, want 1", len(truth.Tools))
			}
			nt := truth.Tools[0]
			if len(nt.Stored) == 0 || slices.Contains(nt.Stored, nt.Name) {
				t.Errorf("tool %s: stored names %q must be other names", nt.Name, nt.Stored)
			}
			tool, err := toollib.ParseTool(nt.Source)
			if err != nil || tool.Name != nt.Name {
				t.Fatalf("source of %s: %v (parsed %q)", nt.Name, err, tool.Name)
			}
			if err := toollib.Verify(context.Background(), sb, tool); err != nil {
				t.Fatal(err)
			}
			call := fmt.Sprintf("%s\n\nfmt.Println(%s(%d, %d))", nt.Source, nt.Name, p.A, p.B)
			if res := sb.Call(context.Background(), call); res.Status != envs.StatusOK || strings.TrimSpace(res.Output) != p.Task().Answer {
				t.Errorf("%s(%d, %d) printed %q (%s), want %s", nt.Name, p.A, p.B, res.Output, res.Status, p.Task().Answer)
			}
		})
	}
	if _, ok := (Family{}).PhaseTruth(envs.Task{ID: "gsm8k-1", Prompt: "x"}); ok {
		t.Error("a task of another family has a ground truth")
	}
}

func ExampleFamily_PhaseTruth() {
	truth, _ := Family{}.PhaseTruth(Problem{Op: Mod, A: 4053, B: 41}.Task())
	fmt.Println(truth.Subtasks)
	fmt.Println(truth.Tools[0].Name, truth.Tools[0].Stored)
	// Output:
	// [Read the numbers 4053 and 41. Find the remainder of 4053 divided by 41.]
	// remainder [leftover]
}
