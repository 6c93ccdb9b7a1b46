package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/checkpoint"
)

// TestInit builds a random-weight checkpoint from a model config and the
// tiny run's tokenizer: it loads verified with the tokenizer's vocabulary
// and the overridden layers and context, the same seed writes the same
// weights and another seed others, artist bench -serve runs on it, and
// missing flags are usage errors.
func TestInit(t *testing.T) {
	tokDir := tinyCheckpoint(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	if err := os.WriteFile(config, []byte(benchConfigJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name, seed string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		code, stdout, stderr := runCLI("init", "-model-config", config, "-tokenizer", tokDir, "-layers", "2",
			"-max-position", "96", "-seed", seed, "-out", out)
		if code != 0 || !strings.Contains(stdout, "wrote "+out) {
			t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
		}
		return out
	}
	a, again, other := build("a", "7"), build("again", "7"), build("other", "8")
	ck, err := checkpoint.Open(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := ck.Model.Config
	if !ck.Verified || cfg.VocabSize != ck.Tok.VocabSize() || cfg.NumHiddenLayers != 2 || cfg.MaxPositionEmbeddings != 96 || cfg.HiddenSize != 16 {
		t.Errorf("checkpoint: verified %v, config %+v, tokenizer vocab %d", ck.Verified, cfg, ck.Tok.VocabSize())
	}
	weights := func(d string) []byte {
		b, err := os.ReadFile(filepath.Join(d, "model.safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if !bytes.Equal(weights(a), weights(again)) {
		t.Error("the same seed wrote other weights")
	}
	if bytes.Equal(weights(a), weights(other)) {
		t.Error("another seed wrote the same weights")
	}
	code, stdout, stderr := runCLI("bench", "-serve", "-checkpoint", a, "-streams", "1,3", "-prompt", "4", "-new-tokens", "5", "-steps", "2")
	if code != 0 {
		t.Fatalf("bench -serve: exit %d\n%s", code, stderr)
	}
	var rep serveBenchReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("bench -serve printed %q: %v", stdout, err)
	}
	if len(rep.Runs) != 2 || rep.Runs[1].Streams != 3 || rep.Runs[1].CompletionTokens == 0 || rep.Speedup <= 0 {
		t.Errorf("bench -serve report %+v", rep)
	}
	if code, _, stderr := runCLI("init", "-model-config", config, "-out", filepath.Join(dir, "x")); code != 2 || !strings.Contains(stderr, "-tokenizer DIR") {
		t.Errorf("init without -tokenizer: exit %d, %q", code, stderr)
	}
}
