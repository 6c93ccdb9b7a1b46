package trainer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkInit fails before any file of the run is read when the init
// folder is missing, saying how to download the checkpoint into it.
func checkInit(cfg Config) error {
	if cfg.Init == "" {
		return nil
	}
	_, err := os.Stat(cfg.Init)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("trainer: init: %w", err)
	}
	repo := hubRepo(cfg.Init)
	if repo == "" {
		return fmt.Errorf("trainer: init: folder %s does not exist: download the checkpoint into it (huggingface-cli download ORG/MODEL --local-dir %s)", cfg.Init, cfg.Init)
	}
	return fmt.Errorf("trainer: init: folder %s does not exist: download %s into it (huggingface-cli download %s --local-dir %s)", cfg.Init, repo, repo, cfg.Init)
}

// hubRepo is the HuggingFace repository a checkpoint folder is named
// after: Qwen/NAME for a Qwen folder (Qwen2.5-7B-Instruct), "" when the
// name says nothing.
func hubRepo(dir string) string {
	name := filepath.Base(filepath.Clean(dir))
	if strings.HasPrefix(strings.ToLower(name), "qwen") {
		return "Qwen/" + name
	}
	return ""
}
