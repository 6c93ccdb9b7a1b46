package checkpoint_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
)

// A run saves a checkpoint into its checkpoints/ folder, finds it again
// through latest, and loads it verified; a file changed after the save is
// refused by name.
func Example() {
	run, _ := os.MkdirTemp("", "run-")
	defer os.RemoveAll(run)
	root := filepath.Join(run, checkpoint.Dir)
	os.Mkdir(root, 0o755)

	m, _ := policy.New(policy.Config{VocabSize: 260, HiddenSize: 16, IntermediateSize: 24, NumHiddenLayers: 1,
		NumAttentionHeads: 2, NumKeyValueHeads: 1, MaxPositionEmbeddings: 32, RopeTheta: 10000, RMSNormEps: 1e-6},
		rand.New(rand.NewSource(1)))
	policy.WriteByteLevelTokenizer(run, []string{"<eos>"}, "<eos>")
	tok, _ := policy.LoadTokenizer(filepath.Join(run, policy.TokenizerJSONFile))

	state := map[string]int{"step": 1}
	c := checkpoint.Contents{Model: m, Tok: tok, Config: []byte("seed: 1\n"), State: state}
	if err := checkpoint.Save(root, checkpoint.StepDir(1), c, 3); err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := checkpoint.Latest(run)
	f, err := checkpoint.Open(dir, os.Stdout)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(filepath.Base(f.Dir), "verified:", f.Verified)

	os.WriteFile(filepath.Join(dir, "train_config.yaml"), []byte("seed: 2\n"), 0o644)
	_, err = checkpoint.Verify(dir)
	var damaged *checkpoint.Error
	if errors.As(err, &damaged) {
		fmt.Println("damaged:", damaged.File)
	}
	// Output:
	// step-000001 verified: true
	// damaged: train_config.yaml
}
