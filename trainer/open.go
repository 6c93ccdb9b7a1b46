package trainer

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/policy"
)

// Checkpoint is a model folder loaded for use: the weights and the
// tokenizer, with the end-of-sequence token and stop ids the folder names.
type Checkpoint struct {
	Dir   string
	Model *policy.Model
	Tok   *policy.Tokenizer
	// Verified is true when the folder has a manifest.json and every file
	// matched it; false for a folder without one.
	Verified bool
}

// LoadCheckpoint loads a model folder the one way train, eval, sample and
// serve all load one: it checks every file against the folder's
// manifest.json, then reads config.json and the weights (policy.LoadModel)
// and tokenizer.json with the tokenizer_config.json and
// generation_config.json beside it (policy.LoadTokenizer: EOS and every
// stop id, as HuggingFace reads them).
//
// A file missing, truncated or changed since the manifest was written is
// refused with a *CheckpointError naming the file. A folder without a
// manifest (a HuggingFace download, or a checkpoint written before
// manifests) is accepted unverified, with a warning on warn (nil: none).
func LoadCheckpoint(dir string, warn io.Writer) (*Checkpoint, error) {
	m, verified, err := loadModelFolder(dir, warn)
	if err != nil {
		return nil, err
	}
	tok, err := readTokenizer(filepath.Join(dir, policy.TokenizerJSONFile))
	if err != nil {
		return nil, err
	}
	return &Checkpoint{Dir: dir, Model: m, Tok: tok, Verified: verified}, nil
}

// loadModelFolder verifies the whole folder against its manifest (a
// warning on warn when it has none) and loads its model.
func loadModelFolder(dir string, warn io.Writer) (*policy.Model, bool, error) {
	return loadModelFolderWith(dir, warn, policy.LoadModel)
}

// loadModelFolderWith is loadModelFolder reading the weights with load
// (policy.LoadModel or LoadModel16).
func loadModelFolderWith(dir string, warn io.Writer, load func(string) (*policy.Model, error)) (*policy.Model, bool, error) {
	verified, err := verifyCheckpoint(dir)
	if err != nil {
		return nil, verified, err
	}
	if !verified && warn != nil {
		fmt.Fprintf(warn, "trainer: warning: %s has no %s, so its files are not verified (a HuggingFace download or a checkpoint of an older artist); loading it as it is\n", dir, manifestFile)
	}
	m, err := load(dir)
	if err == nil && policy.HasAdapter(dir) {
		err = policy.LoadAdapter(dir, m) // a LoRA checkpoint: the base and its adapters
	}
	if err != nil {
		return nil, verified, fmt.Errorf("trainer: checkpoint %s: %w", dir, err)
	}
	return m, verified, nil
}

// readTokenizer loads the tokenizer.json at path with the side files of
// its folder (policy.LoadTokenizer), after checking those files against
// the folder's manifest when it has one.
func readTokenizer(path string) (*policy.Tokenizer, error) {
	dir := filepath.Dir(path)
	if _, err := verifyCheckpoint(dir, filepath.Base(path), policy.TokenizerConfigFile, policy.GenerationConfigFile, policy.ChatTemplateFile); err != nil {
		return nil, err
	}
	tok, err := policy.LoadTokenizer(path)
	if err != nil {
		return nil, fmt.Errorf("trainer: tokenizer: %w", err)
	}
	return tok, nil
}

// OpenCheckpoint prepares a run around a checkpoint folder: its
// train_config.yaml (with the sets applied), tokenizer and weights, loaded
// and verified as LoadCheckpoint does. A folder without
// train_config.yaml (e.g. a plain HuggingFace checkpoint) uses
// DefaultConfig. It is what `artist eval` and `artist sample` use.
func OpenCheckpoint(ctx context.Context, dir string, sets []string, out io.Writer) (*Run, error) {
	cfgPath := filepath.Join(dir, "train_config.yaml")
	if _, err := verifyCheckpoint(dir, "train_config.yaml"); err != nil {
		return nil, err
	}
	var cfg Config
	var err error
	if _, statErr := os.Stat(cfgPath); statErr == nil {
		cfg, err = Load(cfgPath, sets)
	} else {
		cfg, err = Parse(nil, "defaults", sets)
	}
	if err != nil {
		return nil, err
	}
	tokPath := filepath.Join(dir, policy.TokenizerJSONFile)
	if _, err := os.Stat(tokPath); err != nil {
		return nil, fmt.Errorf("trainer: checkpoint %s has no tokenizer.json: copy the tokenizer files of the model beside its weights", dir)
	}
	cfg.Tokenizer = tokPath
	cfg.Init = dir
	return Setup(ctx, cfg, out)
}
