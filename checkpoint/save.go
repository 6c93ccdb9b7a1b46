package checkpoint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/policy"
)

// Contents is what Save writes into a checkpoint folder.
type Contents struct {
	// Model is written as config.json and model.safetensors; with LoRA
	// adapters, the frozen base, and the adapters beside it in PEFT's
	// layout with the checkpoint's final folder as their base.
	Model *policy.Model
	// Tok is written as the tokenizer files (policy.TokenizerFiles).
	Tok *policy.Tokenizer
	// Config is written as train_config.yaml.
	Config []byte
	// State is written as state.json, indented JSON of the value.
	State any
	// Optimizer is written as optimizer.safetensors; nil writes none.
	Optimizer *OptimizerState
	// BeforeCommit, when set, runs once every file is written and the
	// manifest is in place, before the folder is renamed into place: state
	// kept beside the checkpoints (a grown tool library) is saved there,
	// so a checkpoint never appears before it. Its error aborts the save.
	BeforeCommit func() error
}

// Save writes c as the checkpoint name of root (a run's checkpoints/
// folder, which must exist): into a temporary folder of root, then its
// manifest, then BeforeCommit, then a rename onto root/name (replacing a
// folder of that name), then latest. It then prunes root to keep
// checkpoints besides step-000000 (Prune).
func Save(root, name string, c Contents, keep int) error {
	tmp, err := os.MkdirTemp(root, ".tmp-")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer os.RemoveAll(tmp)
	base, _ := filepath.Abs(filepath.Join(root, name))
	if err := write(tmp, base, c); err != nil {
		return err
	}
	if err := WriteManifest(tmp); err != nil {
		return err
	}
	if c.BeforeCommit != nil {
		if err := c.BeforeCommit(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if err := replaceDir(tmp, filepath.Join(root, name)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := SetLatest(root, name); err != nil {
		return err
	}
	return Prune(root, keep)
}

// write puts every file of c but the manifest into dir; base is the
// folder LoRA adapters name as their base model.
func write(dir, base string, c Contents) error {
	if err := policy.SaveModel(dir, c.Model); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if c.Model.LoRA() != nil {
		if err := policy.SaveAdapter(dir, c.Model, base); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if err := c.Tok.Files().Write(dir); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	stJSON, err := json.MarshalIndent(c.State, "", "  ")
	if err != nil {
		return fmt.Errorf("checkpoint: state.json: %w", err)
	}
	files := map[string][]byte{"train_config.yaml": c.Config, "state.json": stJSON}
	for name, data := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	if c.Optimizer != nil {
		return SaveOptimizer(filepath.Join(dir, OptimizerFile), *c.Optimizer)
	}
	return nil
}

// replaceDir renames src onto dst, replacing an existing dst, and syncs
// dst's parent.
func replaceDir(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		old := dst + ".old"
		os.RemoveAll(old)
		if err := os.Rename(dst, old); err != nil {
			return err
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(src, dst); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dst))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
