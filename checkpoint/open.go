package checkpoint

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/artist-rl/artist/policy"
)

// Folder is a model folder loaded for use: the weights and the tokenizer,
// with the end-of-sequence token and stop ids the folder names.
type Folder struct {
	Dir   string
	Model *policy.Model
	Tok   *policy.Tokenizer
	// Verified is true when the folder has a manifest.json and every file
	// matched it; false for a folder without one.
	Verified bool
}

// Open loads a model folder the one way train, eval, sample and serve all
// load one: it checks every file against the folder's manifest.json, then
// reads config.json and the weights (policy.LoadModel, with the LoRA
// adapters of a folder that has them) and tokenizer.json with the
// tokenizer_config.json and generation_config.json beside it
// (policy.LoadTokenizer: EOS and every stop id, as HuggingFace reads
// them).
//
// A file missing, truncated or changed since the manifest was written is
// refused with an *Error naming the file. A folder without a manifest (a
// HuggingFace download, or a checkpoint written before manifests) is
// accepted unverified, with a warning on warn (nil: none).
func Open(dir string, warn io.Writer) (*Folder, error) {
	m, verified, err := LoadModel(dir, warn, nil)
	if err != nil {
		return nil, err
	}
	tok, err := LoadTokenizer(filepath.Join(dir, policy.TokenizerJSONFile))
	if err != nil {
		return nil, err
	}
	return &Folder{Dir: dir, Model: m, Tok: tok, Verified: verified}, nil
}

// LoadModel verifies the whole folder dir against its manifest (a warning
// on warn, nil: none, when it has none) and reads its model with load
// (policy.LoadModel when nil; policy.LoadModel16 reads the layer weights
// straight into bfloat16), with the LoRA adapters of a folder that has
// them. verified reports whether the folder had a manifest.
func LoadModel(dir string, warn io.Writer, load func(string) (*policy.Model, error)) (m *policy.Model, verified bool, err error) {
	if load == nil {
		load = policy.LoadModel
	}
	verified, err = Verify(dir)
	if err != nil {
		return nil, verified, err
	}
	if !verified && warn != nil {
		fmt.Fprintf(warn, "checkpoint: warning: %s has no %s, so its files are not verified (a HuggingFace download or a checkpoint of an older artist); loading it as it is\n", dir, ManifestFile)
	}
	m, err = load(dir)
	if err == nil && policy.HasAdapter(dir) {
		err = policy.LoadAdapter(dir, m) // a LoRA checkpoint: the base and its adapters
	}
	if err != nil {
		return nil, verified, fmt.Errorf("checkpoint: %s: %w", dir, err)
	}
	return m, verified, nil
}

// LoadTokenizer loads the tokenizer.json at path with the side files of
// its folder (policy.LoadTokenizer), after checking those files against
// the folder's manifest when it has one.
func LoadTokenizer(path string) (*policy.Tokenizer, error) {
	dir := filepath.Dir(path)
	if _, err := Verify(dir, filepath.Base(path), policy.TokenizerConfigFile, policy.GenerationConfigFile, policy.ChatTemplateFile); err != nil {
		return nil, err
	}
	tok, err := policy.LoadTokenizer(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: tokenizer: %w", err)
	}
	return tok, nil
}
