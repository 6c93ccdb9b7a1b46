package checkpoint

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/artist-rl/artist/policy"
)

// TestWriteWeightsLinksTokenizer: a push after the first links the
// tokenizer files of the one before instead of writing them, the folder
// still loads and verifies with the new weights, and removing the older
// folder leaves the newer one whole.
func TestWriteWeightsLinksTokenizer(t *testing.T) {
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
	root := t.TempDir()
	v1, v2 := filepath.Join(root, "v1"), filepath.Join(root, "v2")
	if err := WriteWeightsAfter(v1, m, tok, ""); err != nil {
		t.Fatal(err)
	}
	m.Params[0].Data[0] += 1 // the next version's weights
	if err := WriteWeightsAfter(v2, m, tok, v1); err != nil {
		t.Fatal(err)
	}
	linked := 0
	for _, name := range policy.TokenizerFileNames {
		a, errA := os.Stat(filepath.Join(v1, name))
		b, errB := os.Stat(filepath.Join(v2, name))
		if os.IsNotExist(errA) && os.IsNotExist(errB) {
			continue
		}
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", name, errA, errB)
		}
		if !os.SameFile(a, b) {
			t.Errorf("%s was written again, not linked", name)
		}
		linked++
	}
	if linked == 0 {
		t.Fatal("no tokenizer file in the folders")
	}
	if err := os.RemoveAll(v1); err != nil {
		t.Fatal(err)
	}
	ck, err := Open(v2, nil)
	if err != nil {
		t.Fatalf("the linked folder does not load: %v", err)
	}
	if !slices.Equal(ck.Model.Params[0].Data, m.Params[0].Data) {
		t.Error("the linked folder holds other weights than those written")
	}
	if _, err := FileSHA256(v2, "model.safetensors"); err != nil {
		t.Errorf("the linked folder does not verify: %v", err)
	}
}
