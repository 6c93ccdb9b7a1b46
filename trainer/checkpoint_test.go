package trainer

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
)

// copyDir copies the regular files of src into a fresh folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// flipBit flips one bit in the middle of a file.
func flipBit(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// truncate cuts a file to half its length.
func truncate(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// trainedRun trains cfg to the end and fails the test on error.
func trainedRun(t *testing.T, cfg Config) {
	t.Helper()
	if _, err := Train(context.Background(), cfg, nil); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointManifestRefusesDamage: every checkpoint carries a manifest,
// and loading refuses a file that no longer matches it, naming the file.
func TestCheckpointManifestRefusesDamage(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t, run)
	cfg.GRPO.Steps = 2
	trainedRun(t, cfg)
	ckpt := filepath.Join(run, "checkpoints", checkpoint.StepDir(2))
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		file   string // the file the error must name; "" means no error
		want   string // another substring of the error
	}{
		{"intact", func(*testing.T, string) {}, "", ""},
		{"bit flip in the weights", func(t *testing.T, d string) { flipBit(t, filepath.Join(d, "model.safetensors")) }, "model.safetensors", "sha256"},
		{"truncated optimizer state", func(t *testing.T, d string) { truncate(t, filepath.Join(d, "optimizer.safetensors")) }, "optimizer.safetensors", "truncated"},
		{"bit flip in the stop ids", func(t *testing.T, d string) { flipBit(t, filepath.Join(d, "generation_config.json")) }, "generation_config.json", "sha256"},
		{"missing tokenizer config", func(t *testing.T, d string) { os.Remove(filepath.Join(d, "tokenizer_config.json")) }, "tokenizer_config.json", "missing"},
		{"damaged manifest", func(t *testing.T, d string) { truncate(t, filepath.Join(d, checkpoint.ManifestFile)) }, checkpoint.ManifestFile, "manifest itself"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, ckpt)
			c.damage(t, dir)
			var warn bytes.Buffer
			ck, err := checkpoint.Open(dir, &warn)
			if c.file == "" {
				if err != nil || !ck.Verified || warn.Len() > 0 {
					t.Fatalf("intact checkpoint: err %v verified %v warnings %q", err, ck != nil && ck.Verified, warn.String())
				}
				return
			}
			var ce *checkpoint.Error
			if !errors.As(err, &ce) || ce.File != c.file || !strings.Contains(err.Error(), c.file) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a checkpoint.Error naming %s and saying %q", err, c.file, c.want)
			}
			if _, err := OpenCheckpoint(context.Background(), dir, nil, nil); err == nil || !strings.Contains(err.Error(), c.file) {
				t.Errorf("OpenCheckpoint (eval, sample): err = %v, want one naming %s", err, c.file)
			}
		})
	}
}

// TestCheckpointWithoutManifestLoadsWithWarning: a folder without
// manifest.json (a HuggingFace download, or a checkpoint of an older
// artist) loads unverified, with a warning, and a run resumes from one.
func TestCheckpointWithoutManifestLoadsWithWarning(t *testing.T) {
	run := t.TempDir()
	first := tinyConfig(t, run)
	first.GRPO.Steps = 2
	trainedRun(t, first)
	names, err := checkpoint.List(filepath.Join(run, "checkpoints"))
	if err != nil || len(names) == 0 {
		t.Fatalf("checkpoints %v, %v", names, err)
	}
	for _, n := range names {
		if err := os.Remove(filepath.Join(run, "checkpoints", n, checkpoint.ManifestFile)); err != nil {
			t.Fatal(err)
		}
	}
	var warn bytes.Buffer
	ck, err := checkpoint.Open(filepath.Join(run, "checkpoints", checkpoint.StepDir(2)), &warn)
	if err != nil || ck.Verified || !strings.Contains(warn.String(), "no manifest.json") {
		t.Fatalf("err %v verified %v warning %q", err, ck != nil && ck.Verified, warn.String())
	}
	var out bytes.Buffer
	if _, err := Train(context.Background(), tinyConfig(t, run), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "from step-000002") || !strings.Contains(out.String(), "no manifest.json") {
		t.Errorf("resume output lacks the warning or the step:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(run, "checkpoints", checkpoint.StepDir(4), checkpoint.ManifestFile)); err != nil {
		t.Errorf("the resumed run's checkpoint has no manifest: %v", err)
	}
}

// TestResumeFallsBackPastDamagedCheckpoint: a run whose newest checkpoint
// is damaged says so, naming the checkpoint and the file, moves it aside,
// resumes from the newest intact one, and ends bit-identical to the run
// before the damage.
func TestResumeFallsBackPastDamagedCheckpoint(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, path string)
		file   string
	}{
		{"bit flip in the weights", flipBit, "model.safetensors"},
		{"truncated optimizer state", truncate, "optimizer.safetensors"},
		{"bit flip in the state", flipBit, "state.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := t.TempDir()
			cfg := tinyConfig(t, run)
			cfg.Checkpoint.Keep = 2 // step-000002 and step-000004
			trainedRun(t, cfg)
			newest := filepath.Join(run, "checkpoints", checkpoint.StepDir(4))
			want := map[string][]byte{}
			for _, f := range []string{"model.safetensors", "optimizer.safetensors"} {
				b, err := os.ReadFile(filepath.Join(newest, f))
				if err != nil {
					t.Fatal(err)
				}
				want[f] = b
			}
			c.damage(t, filepath.Join(newest, c.file))
			var out bytes.Buffer
			if _, err := Train(context.Background(), cfg, &out); err != nil {
				t.Fatal(err)
			}
			log := out.String()
			for _, s := range []string{checkpoint.StepDir(4) + " is damaged", c.file, "resuming from " + checkpoint.StepDir(2)} {
				if !strings.Contains(log, s) {
					t.Errorf("output does not say %q:\n%s", s, log)
				}
			}
			if _, err := os.Stat(newest + checkpoint.DamagedSuffix); err != nil {
				t.Errorf("the damaged checkpoint was not moved aside: %v", err)
			}
			for f, w := range want {
				got, err := os.ReadFile(filepath.Join(newest, f))
				if err != nil || !bytes.Equal(got, w) {
					t.Errorf("%s after the resumed run differs from the uninterrupted run's (%v)", f, err)
				}
			}
			latest, err := checkpoint.Latest(run)
			if err != nil || filepath.Base(latest) != checkpoint.StepDir(4) {
				t.Errorf("latest = %q, %v; want %s", latest, err, checkpoint.StepDir(4))
			}
		})
	}
}

// TestResumeRefusesWhenNoCheckpointIsIntact: with every checkpoint
// damaged, a run fails with a message naming them instead of starting
// over.
func TestResumeRefusesWhenNoCheckpointIsIntact(t *testing.T) {
	run := t.TempDir()
	cfg := tinyConfig(t, run)
	cfg.GRPO.Steps = 2
	trainedRun(t, cfg)
	root := filepath.Join(run, "checkpoints")
	names, _ := checkpoint.List(root)
	for _, n := range names {
		flipBit(t, filepath.Join(root, n, "model.safetensors"))
	}
	for try := 1; try <= 2; try++ { // the refusal repeats: nothing was moved
		_, err := Train(context.Background(), cfg, nil)
		if err == nil || !strings.Contains(err.Error(), "every checkpoint") || !strings.Contains(err.Error(), checkpoint.StepDir(0)+" (model.safetensors)") {
			t.Fatalf("try %d: err = %v, want a refusal naming the damaged checkpoints", try, err)
		}
	}
}
