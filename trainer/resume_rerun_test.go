package trainer

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/collective"
)

// fileState is what a snapshot records of one entry of a run folder.
type fileState struct {
	mtime time.Time
	data  []byte // nil for a folder
}

// snapshot records the content and modification time of every file and
// folder under dir.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		s := fileState{mtime: info.ModTime()}
		if d.Type().IsRegular() {
			if s.data, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFolder fails the test for each entry that was added, removed or
// changed (content or modification time) between two snapshots.
func sameFolder(t *testing.T, before, after map[string]fileState) {
	t.Helper()
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Errorf("%s was removed", p)
		case !bytes.Equal(a.data, b.data):
			t.Errorf("%s changed content", p)
		case !a.mtime.Equal(b.mtime):
			t.Errorf("%s changed modification time (%v -> %v)", p, b.mtime, a.mtime)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was added", p)
		}
	}
}

// rerunConfig is tinyConfig cut to 2 GRPO steps.
func rerunConfig(t *testing.T, dir string) Config {
	cfg := tinyConfig(t, dir)
	cfg.GRPO.Steps = 2
	return cfg
}

// TestRerunOfFinishedRun trains a run to the end, then trains it again:
// with the same config, with keys changed that would change what it
// trained, and with keys that only change what comes next. The refused
// and finished reruns change no file of the run folder; more steps are
// accepted, said, and keep the earlier processes' peak memory.
func TestRerunOfFinishedRun(t *testing.T) {
	run := t.TempDir()
	first, err := Train(context.Background(), rerunConfig(t, run), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		set  []string
		want []string // substrings of the output, or of the error when refused
		fail bool
	}{
		{"same config", nil, []string{"is finished (GRPO step 2 of 2)", "summary.json"}, false},
		{"changed lr", []string{"grpo.lr=0.001"},
			[]string{"grpo.lr: run has 0.01, config says 0.001", "another run_dir", "set them back"}, true},
		{"changed model and seed", []string{"model.hidden_size=32", "seed=4"},
			[]string{"model.hidden_size: run has 16, config says 32", "seed: run has 3, config says 4"}, true},
		{"changed tokenizer merges", []string{"tokenizer_merges=8"}, []string{"tokenizer_merges: run has 256, config says 8"}, true},
		{"fewer steps than done", []string{"grpo.steps=1"}, []string{"grpo.steps: run has done 2, config says 1"}, true},
		{"eval settings of a finished run", []string{"eval.size=4"},
			[]string{"is finished", "eval.size: run has 0, config says 4: not applied"}, false},
		{"rollout servers for a finished run", []string{"rollout.servers=[http://127.0.0.1:1]"},
			[]string{"is finished", "rollout.servers: run has (unset), config says", "not applied"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := rerunConfig(t, run)
			for _, s := range c.set {
				if err := applySet(&cfg, s); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(t, run)
			var out bytes.Buffer
			sum, err := Train(context.Background(), cfg, &out)
			got := out.String()
			if c.fail {
				if err == nil {
					t.Fatalf("rerun accepted, want a refusal; output:\n%s", got)
				}
				got = err.Error()
			} else if err != nil {
				t.Fatal(err)
			} else if sum.Final.Accuracy != first.Final.Accuracy || sum.WallS != first.WallS || sum.PeakRSSMiB != first.PeakRSSMiB {
				t.Errorf("summary %+v, want the recorded %+v", sum, first)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			sameFolder(t, before, snapshot(t, run))
		})
	}
	t.Run("more steps", func(t *testing.T) { moreSteps(t, run) })
}

// moreSteps trains the finished 2-step run of run to 3 steps, after
// raising the peak memory its summary records, and requires the change to
// be said and the higher peak kept.
func moreSteps(t *testing.T, run string) {
	path := filepath.Join(run, "summary.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	const earlierPeak = 1e6 // MiB: more than this process will use
	rec["peak_rss_mib"] = earlierPeak
	b, _ = json.Marshal(rec)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := rerunConfig(t, run)
	cfg.GRPO.Steps = 3
	var out bytes.Buffer
	sum, err := Train(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "resume: grpo.steps: run has 2, config says 3: applied"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
	if sum.Steps != 3 || sum.PeakRSSMiB != earlierPeak {
		t.Errorf("summary steps %d peak %g, want 3 and the earlier process's %g", sum.Steps, sum.PeakRSSMiB, earlierPeak)
	}
	var st trainerState
	b, _ = os.ReadFile(filepath.Join(run, checkpoint.Dir, checkpoint.StepDir(3), "state.json"))
	if err := json.Unmarshal(b, &st); err != nil || st.PeakRSSMiB != earlierPeak {
		t.Errorf("step-3 state peak_rss_mib %g (%v), want %g", st.PeakRSSMiB, err, earlierPeak)
	}
	recorded, err := Load(filepath.Join(run, "config.yaml"), nil)
	if err != nil || recorded.GRPO.Steps != 3 {
		t.Errorf("config.yaml records grpo.steps %d (%v), want 3", recorded.GRPO.Steps, err)
	}
}

// TestDistRerunChecksConfig: the ranks of a launched job refuse, every one
// of them, to resume with a changed key, and a rerun of the finished job
// changes no file.
func TestDistRerunChecksConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a run")
	}
	dir := t.TempDir()
	train := func(sets ...string) []error {
		return onRanks(2, func(c collective.Collective) error {
			_, err := TrainOn(context.Background(), distConfig(t, dir, append([]string{"grpo.steps=2"}, sets...)...), c, nil)
			return err
		})
	}
	for i, err := range train() {
		if err != nil {
			t.Fatalf("rank %d: %v", i, err)
		}
	}
	before := snapshot(t, dir)
	for i, err := range train("grpo.lr=0.001") {
		if err == nil || !strings.Contains(err.Error(), "grpo.lr: run has 0.01, config says 0.001") {
			t.Errorf("rank %d: err = %v, want a refusal naming grpo.lr", i, err)
		}
	}
	for i, err := range train() {
		if err != nil {
			t.Errorf("rerun, rank %d: %v", i, err)
		}
	}
	sameFolder(t, before, snapshot(t, dir))
}

// TestResumeDiff: the keys that differ, with both values, leaving out
// run_dir and the sections of families the run does not train.
func TestResumeDiff(t *testing.T) {
	base := DefaultConfig()
	cases := []struct {
		name string
		set  []string
		want []string
	}{
		{"same", nil, nil},
		{"run_dir", []string{"run_dir=elsewhere"}, nil},
		{"lr", []string{"grpo.lr=0.001"}, []string{"grpo.lr: run has 0.0002, config says 0.001"}},
		{"two keys, sorted", []string{"seed=2", "eval.size=5"},
			[]string{"eval.size: run has 0, config says 5", "seed: run has 1, config says 2"}},
		{"one reward weight", []string{"reward.weights.answer=2"}, []string{"reward.weights.answer: run has 1, config says 2"}},
		{"a list on one line", []string{"rollout.servers=[http://a:1,http://b:2]"},
			[]string{`rollout.servers: run has (unset), config says ["http://a:1","http://b:2"]`}},
		{"batching", []string{"rollout.batching=lockstep"}, []string{"rollout.batching: run has continuous, config says lockstep"}},
		{"compute dtype", []string{"model.compute_dtype=bf16"}, []string{"model.compute_dtype: run has f32, config says bf16"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			for _, s := range c.set {
				if err := applySet(&cfg, s); err != nil {
					t.Fatal(err)
				}
			}
			diffs, err := resumeDiff(base, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range diffs {
				got = append(got, d.String())
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("diff %q, want %q", got, c.want)
			}
		})
	}
}
