package trainer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/artist-rl/artist/policy"
)

// modelFiles are the files writeModelFiles replaces, in the order it
// renames them (the weights last: the config of a run's weights does not
// change from push to push).
var modelFiles = []string{"config.json", "model.safetensors"}

// writeModelFiles writes m's weights over the model files of dir, the
// folder vLLM servers were started on (rollout.vllm_model_dir): each new
// file is written and synced under a temporary name inside dir, then
// renamed over the old one, so a reader opening a file by name gets the
// old file or the whole new one, never part of one. The tokenizer files
// stay as they are. A manifest.json in dir (a copy of a checkpoint) is
// written again for the new files. dir must exist and hold no other
// weights file (*.safetensors, model.safetensors.index.json), which vLLM
// would load beside model.safetensors. A model with LoRA adapters is
// written merged.
func writeModelFiles(dir string, m *policy.Model) error {
	if err := checkModelDir(dir); err != nil {
		return err
	}
	if m.LoRA() != nil {
		var err error
		if m, err = m.Merged(); err != nil {
			return fmt.Errorf("trainer: weights: %w", err)
		}
	}
	tmp, err := os.MkdirTemp(dir, ".tmp-weights-")
	if err != nil {
		return fmt.Errorf("trainer: rollout.vllm_model_dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := policy.SaveModel(tmp, m); err != nil {
		return fmt.Errorf("trainer: weights: %w", err)
	}
	for _, name := range modelFiles {
		if err := os.Rename(filepath.Join(tmp, name), filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("trainer: rollout.vllm_model_dir: %w", err)
		}
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("trainer: rollout.vllm_model_dir: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, manifestFile)); err == nil {
		return writeManifest(dir)
	}
	return nil
}

// checkModelDir refuses a dir that is not a folder or holds weights
// files other than model.safetensors.
func checkModelDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("trainer: rollout.vllm_model_dir: %w: set it to the folder every vLLM server was started on (vllm serve DIR)", err)
	}
	for _, e := range entries {
		n := e.Name()
		if n != "model.safetensors" && (strings.HasSuffix(n, ".safetensors") || n == "model.safetensors.index.json") {
			return fmt.Errorf("trainer: rollout.vllm_model_dir %s holds %s, which vLLM would load beside the model.safetensors the trainer writes: start vLLM on a folder whose weights are one model.safetensors (a copy of a checkpoint of this run)", dir, n)
		}
	}
	return nil
}
