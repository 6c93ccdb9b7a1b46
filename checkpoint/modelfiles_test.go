package checkpoint

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/policy"
)

// TestWriteModelFiles: the weights are written over a model folder's
// files, which then loads and verifies (its manifest written again) with
// the new weights; the tokenizer files stay the same files; nothing
// temporary is left; a folder with another weights file, or none, is
// refused by name.
func TestWriteModelFiles(t *testing.T) {
	m, err := policy.New(policy.Config{VocabSize: 260, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 1,
		NumAttentionHeads: 2, NumKeyValueHeads: 1, MaxPositionEmbeddings: 32, RopeTheta: 10000, RMSNormEps: 1e-6},
		rand.New(rand.NewSource(3)))
	if err != nil {
		t.Fatal(err)
	}
	tokDir := t.TempDir()
	if err := policy.WriteByteLevelTokenizer(tokDir, []string{"<x>"}, "<x>"); err != nil {
		t.Fatal(err)
	}
	tok, err := policy.LoadTokenizer(filepath.Join(tokDir, policy.TokenizerJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := WriteWeights(dir, m, tok); err != nil { // the folder a server starts on, with a manifest
		t.Fatal(err)
	}
	tokBefore, err := os.Stat(filepath.Join(dir, policy.TokenizerJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	for v := 1; v <= 2; v++ {
		m.Params[0].Data[0] += 1 // the next version's weights
		if err := WriteModelFiles(dir, m); err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		ck, err := Open(dir, nil)
		if err != nil {
			t.Fatalf("version %d: the folder does not load: %v", v, err)
		}
		if !slices.Equal(ck.Model.Params[0].Data, m.Params[0].Data) {
			t.Errorf("version %d: the folder holds other weights than those written", v)
		}
		if _, err := FileSHA256(dir, "model.safetensors"); err != nil {
			t.Errorf("version %d: the folder does not verify: %v", v, err)
		}
	}
	if after, err := os.Stat(filepath.Join(dir, policy.TokenizerJSONFile)); err != nil || !os.SameFile(tokBefore, after) {
		t.Errorf("tokenizer.json was replaced (%v)", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") {
			t.Errorf("%s left in the folder", e.Name())
		}
	}

	cases := []struct {
		name, file string // file: written into a copy of dir; "" leaves the folder out
		want       string
	}{
		{"optimizer state", "optimizer.safetensors", "holds optimizer.safetensors"},
		{"shard", "model-00001-of-00002.safetensors", "holds model-00001-of-00002.safetensors"},
		{"shard index", "model.safetensors.index.json", "holds model.safetensors.index.json"},
		{"no folder", "", "model folder"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "model")
			if c.file != "" {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, c.file), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteModelFiles(d, m)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(d, "model.safetensors")); err == nil {
				t.Error("weights written into a refused folder")
			}
		})
	}
}
