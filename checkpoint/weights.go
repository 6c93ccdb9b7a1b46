package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	return WriteWeightsAfter(dir, m, tok, "")
}

// WriteWeightsAfter is WriteWeights; with prev, a folder it wrote before
// with the same tok, the tokenizer files are hard links to prev's instead
// of new copies (files are never written in place, so a link cannot
// change under a reader). A rollout push thus writes the weights alone:
// each copy is a synced write, and the push is on the rollouts' path.
func WriteWeightsAfter(dir string, m *policy.Model, tok *policy.Tokenizer, prev string) error {
	if m.LoRA() != nil {
		var err error
		if m, err = m.Merged(); err != nil {
			return fmt.Errorf("checkpoint: weights: %w", err)
		}
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("checkpoint: weights: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-weights-")
	if err != nil {
		return fmt.Errorf("checkpoint: weights: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := policy.SaveModel(tmp, m); err != nil {
		return fmt.Errorf("checkpoint: weights: %w", err)
	}
	if !linkTokenizer(prev, tmp) {
		if err := tok.Files().Write(tmp); err != nil {
			return fmt.Errorf("checkpoint: weights: %w", err)
		}
	}
	if err := WriteManifest(tmp); err != nil {
		return err
	}
	if err := replaceDir(tmp, dir); err != nil {
		return fmt.Errorf("checkpoint: weights: %w", err)
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

// modelFiles are the files WriteModelFiles replaces, in the order it
// renames them (the weights last: the config of a run's weights does not
// change from push to push).
var modelFiles = []string{"config.json", "model.safetensors"}

// WriteModelFiles writes m's weights over the model files of dir, a
// folder inference servers were started on (vLLM's): each new file is
// written and synced under a temporary name inside dir, then renamed over
// the old one, so a reader opening a file by name gets the old file or
// the whole new one, never part of one. The tokenizer files stay as they
// are. A manifest.json in dir (a copy of a checkpoint) is written again
// for the new files. dir must exist and hold no other weights file
// (*.safetensors, model.safetensors.index.json), which vLLM would load
// beside model.safetensors. A model with LoRA adapters is written merged.
func WriteModelFiles(dir string, m *policy.Model) error {
	if err := checkModelDir(dir); err != nil {
		return err
	}
	if m.LoRA() != nil {
		var err error
		if m, err = m.Merged(); err != nil {
			return fmt.Errorf("checkpoint: weights: %w", err)
		}
	}
	tmp, err := os.MkdirTemp(dir, ".tmp-weights-")
	if err != nil {
		return fmt.Errorf("checkpoint: model folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := policy.SaveModel(tmp, m); err != nil {
		return fmt.Errorf("checkpoint: weights: %w", err)
	}
	for _, name := range modelFiles {
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("checkpoint: model folder: %w", err)
		}
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("checkpoint: model folder: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return WriteManifest(dir)
	}
	return nil
}

// checkModelDir refuses a dir that is not a folder or holds weights
// files other than model.safetensors.
func checkModelDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("checkpoint: model folder: %w", err)
	}
	for _, e := range entries {
		n := e.Name()
		if n != "model.safetensors" && (strings.HasSuffix(n, ".safetensors") || n == "model.safetensors.index.json") {
			return fmt.Errorf("checkpoint: model folder %s holds %s, which vLLM would load beside the model.safetensors written there: start vLLM on a folder whose weights are one model.safetensors (a copy of a checkpoint of this run)", dir, n)
		}
	}
	return nil
}
