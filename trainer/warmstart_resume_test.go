package trainer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
)

// warmResumeConfig is tinyConfig with a warm-start checkpoint every 10 of
// its 40 steps.
func warmResumeConfig(t *testing.T, dir string) Config {
	cfg := tinyConfig(t, dir)
	cfg.Checkpoint.WarmStartEvery = 10
	return cfg
}

// finalFiles are the files whose bytes a resumed run must reproduce: the
// end of the warm start and the last GRPO checkpoint.
var finalFiles = []string{
	"step-000000/model.safetensors",
	"step-000004/model.safetensors",
	"step-000004/optimizer.safetensors",
}

func readFinal(t *testing.T, run string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, f := range finalFiles {
		b, err := os.ReadFile(filepath.Join(run, "checkpoints", f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = b
	}
	return out
}

// TestWarmStartResumeIsExact kills a run during the warm start (a context
// cancelled after step K), resumes it, and requires every weight and
// optimizer moment of the finished run to be bit-identical to those of a
// run that never stopped.
func TestWarmStartResumeIsExact(t *testing.T) {
	whole := t.TempDir()
	trainedRun(t, warmResumeConfig(t, whole))
	want := readFinal(t, whole)
	cases := []struct {
		name   string
		killAt int    // warm-start steps done when the run is killed
		from   string // the checkpoint the second process resumes from; "" starts over
	}{
		{"between checkpoints", 25, checkpoint.WarmStartDir(20)},
		{"right after a checkpoint", 30, checkpoint.WarmStartDir(30)},
		{"after the last step, before the evaluation", 40, checkpoint.WarmStartDir(40)},
		{"before the first checkpoint", 5, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := t.TempDir()
			r, err := Setup(context.Background(), warmResumeConfig(t, run), nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			r.afterWarmStep = func(step int) {
				if step == c.killAt {
					cancel()
				}
			}
			_, err = r.Run(ctx)
			r.Close()
			cancel()
			if err == nil {
				t.Fatal("the killed run finished")
			}
			if _, err := os.Stat(filepath.Join(run, "checkpoints", checkpoint.StepDir(0))); err == nil {
				t.Fatal("the killed run wrote step-000000: it was not killed during the warm start")
			}
			latest, _ := checkpoint.Latest(run)
			if filepath.Base(latest) != c.from && !(c.from == "" && latest == "") {
				t.Fatalf("latest checkpoint %q, want %q", latest, c.from)
			}
			// A kill while a checkpoint was being written leaves its
			// temporary folder, which must neither count nor stay.
			stale := filepath.Join(run, "checkpoints", ".tmp-killed")
			if err := os.MkdirAll(stale, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(stale, "model.safetensors"), []byte("partial"), 0o644)
			var out bytes.Buffer
			if _, err := Train(context.Background(), warmResumeConfig(t, run), &out); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(stale); err == nil {
				t.Error("the temporary folder of the killed checkpoint write is still there")
			}
			if c.from != "" && !strings.Contains(out.String(), "from "+c.from+" (warm-start step") {
				t.Errorf("output does not say it resumed from %s:\n%s", c.from, out.String())
			}
			got := readFinal(t, run)
			for _, f := range finalFiles {
				if !bytes.Equal(got[f], want[f]) {
					t.Errorf("%s differs from the uninterrupted run's", f)
				}
			}
		})
	}
}

// TestWarmStartCheckpointsArePruned: warm-start checkpoints count toward
// checkpoint.keep, so GRPO checkpoints replace them, and step-000000 stays.
func TestWarmStartCheckpointsArePruned(t *testing.T) {
	run := t.TempDir()
	cfg := warmResumeConfig(t, run)
	cfg.GRPO.Steps = 0
	trainedRun(t, cfg)
	names, err := checkpoint.List(filepath.Join(run, "checkpoints"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(names, " "), checkpoint.WarmStartDir(40)+" "+checkpoint.StepDir(0); got != want {
		t.Errorf("after the warm start: %s, want %s", got, want)
	}
	st, err := os.ReadFile(filepath.Join(run, "checkpoints", checkpoint.WarmStartDir(40), "state.json"))
	if err != nil || !bytes.Contains(st, []byte(`"phase": "warmstart"`)) || !bytes.Contains(st, []byte(`"warmstart_step": 40`)) {
		t.Errorf("warm-start state.json = %s, %v", st, err)
	}
	cfg.GRPO.Steps = 2
	trainedRun(t, cfg)
	names, _ = checkpoint.List(filepath.Join(run, "checkpoints"))
	if got, want := strings.Join(names, " "), checkpoint.StepDir(0)+" "+checkpoint.StepDir(2); got != want {
		t.Errorf("after GRPO: %s, want %s", got, want)
	}
}
