package server

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/artist-rl/artist/envs/builtin" // the default task trains the fixtures
	"github.com/artist-rl/artist/trainer"
)

var tinyCkpt struct {
	once      sync.Once
	root, dir string
	err       string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tinyCkpt.root != "" {
		os.RemoveAll(tinyCkpt.root)
	}
	os.Exit(code)
}

// trainRun trains testdata/tiny.yaml into runDir with the overrides and
// returns the folder of its latest checkpoint.
func trainRun(runDir string, sets ...string) (string, error) {
	cfg, err := trainer.Load(filepath.Join("testdata", "tiny.yaml"), append([]string{"run_dir=" + runDir}, sets...))
	if err != nil {
		return "", err
	}
	if _, err := trainer.Train(context.Background(), cfg, io.Discard); err != nil {
		return "", err
	}
	latest, err := os.ReadFile(filepath.Join(runDir, "checkpoints", "latest"))
	if err != nil {
		return "", err
	}
	return filepath.Join(runDir, "checkpoints", strings.TrimSpace(string(latest))), nil
}

// tinyCheckpoint trains a tiny run once (a short warm start, no GRPO) and
// returns its checkpoint folder. TestMain removes the run folder.
func tinyCheckpoint(t *testing.T) string {
	t.Helper()
	tinyCkpt.once.Do(func() {
		dir, err := os.MkdirTemp("", "artist-serve-*")
		if err != nil {
			tinyCkpt.err = err.Error()
			return
		}
		tinyCkpt.root = dir
		tinyCkpt.dir, err = trainRun(dir, "grpo.steps=0", "warmstart.steps=40", "warmstart.lr=0.02", "warmstart.demos=32",
			"warmstart.batch_size=8", "rollout.max_response_tokens=48")
		if err != nil {
			tinyCkpt.err = err.Error()
		}
	})
	if tinyCkpt.err != "" {
		t.Fatalf("tiny checkpoint: %s", tinyCkpt.err)
	}
	return tinyCkpt.dir
}
