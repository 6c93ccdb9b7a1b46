package trainer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/policy"
)

// WriteWeights writes m and tok to dir in the checkpoint layout
// (model.safetensors, config.json, the tokenizer files and manifest.json),
// atomically: the files go to a temporary folder beside dir that is then
// renamed onto it, so a reader sees the old folder or the whole new one.
// It is what rollout servers load with POST /update_weights_from_disk. A
// model with LoRA adapters is written merged (a copy of its weights, for
// the time of the write).
func WriteWeights(dir string, m *policy.Model, tok *policy.Tokenizer) error {
	return writeWeights(dir, m, tok, "")
}

// writeWeights is WriteWeights; with prev, a folder it wrote before with
// the same tok, the tokenizer files are hard links to prev's instead of
// new copies (files are never written in place, so a link cannot change
// under a reader). A rollout push thus writes the weights alone: each
// copy is a synced write, and the push is on the rollouts' path.
func writeWeights(dir string, m *policy.Model, tok *policy.Tokenizer, prev string) error {
	if m.LoRA() != nil {
		var err error
		if m, err = m.Merged(); err != nil {
			return fmt.Errorf("trainer: weights: %w", err)
		}
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("trainer: weights: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-weights-")
	if err != nil {
		return fmt.Errorf("trainer: weights: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := policy.SaveModel(tmp, m); err != nil {
		return fmt.Errorf("trainer: weights: %w", err)
	}
	if !linkTokenizer(prev, tmp) {
		if err := tok.Files().Write(tmp); err != nil {
			return fmt.Errorf("trainer: weights: %w", err)
		}
	}
	if err := writeManifest(tmp); err != nil {
		return err
	}
	if err := replaceDir(tmp, dir); err != nil {
		return fmt.Errorf("trainer: weights: %w", err)
	}
	return nil
}

// linkTokenizer hard-links the tokenizer files of prev into dir and
// reports whether it linked them all (none is linked without prev, or
// when prev lacks tokenizer.json).
func linkTokenizer(prev, dir string) bool {
	if prev == "" {
		return false
	}
	for _, name := range policy.TokenizerFileNames {
		src := filepath.Join(prev, name)
		if _, err := os.Lstat(src); err != nil {
			if os.IsNotExist(err) && name != policy.TokenizerJSONFile {
				continue // an optional file the tokenizer does not have
			}
			return false
		}
		if err := os.Link(src, filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// FileSHA256 is the SHA-256 (hex) of dir's file name: as dir's
// manifest.json records it when the folder has one (after checking the
// file against it), else hashed from the file.
func FileSHA256(dir, name string) (string, error) {
	verified, err := verifyCheckpoint(dir, name)
	if err != nil {
		return "", err
	}
	if verified {
		b, err := os.ReadFile(filepath.Join(dir, manifestFile))
		if err != nil {
			return "", &CheckpointError{Dir: dir, File: manifestFile, Err: err}
		}
		var m manifest
		if err := json.Unmarshal(b, &m); err == nil {
			if e, ok := m.Files[name]; ok {
				return e.SHA256, nil
			}
		}
	}
	e, err := hashFile(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("trainer: %w", err)
	}
	return e.SHA256, nil
}
