package trainer

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// OpenCheckpoint prepares a run around a checkpoint folder: its
// train_config.yaml (with the sets applied), tokenizer.json and weights.
// A folder without train_config.yaml (e.g. a plain HuggingFace checkpoint)
// uses DefaultConfig. It is what `artist eval` and `artist sample` use.
func OpenCheckpoint(dir string, sets []string, out io.Writer) (*Run, error) {
	cfgPath := filepath.Join(dir, "train_config.yaml")
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
	tokPath := filepath.Join(dir, "tokenizer.json")
	if _, err := os.Stat(tokPath); err != nil {
		return nil, fmt.Errorf("trainer: checkpoint %s has no tokenizer.json", dir)
	}
	cfg.Tokenizer = tokPath
	cfg.Init = dir
	return Setup(cfg, out)
}
