package trainer

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ResolveCheckpoint turns the folder a user named as a checkpoint into the
// checkpoint folder to load. A folder that does not exist is an error that
// says so. A run folder (one whose checkpoints/latest names a checkpoint)
// stands for that latest checkpoint, with a note on note (nil: none).
// Any other folder is returned as it is, to be loaded as a model folder.
func ResolveCheckpoint(dir string, note io.Writer) (string, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("trainer: checkpoint folder %s does not exist: name a checkpoint (a run's checkpoints/step-NNNNNN), a run folder (its latest checkpoint is used) or a model folder", dir)
	}
	if err != nil {
		return "", fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("trainer: checkpoint %s is a file: name its folder", dir)
	}
	latest, err := LatestCheckpoint(dir)
	if err != nil {
		return "", err
	}
	if latest == "" {
		if _, err := os.Stat(filepath.Join(dir, "checkpoints")); err == nil {
			return "", fmt.Errorf("trainer: %s is a run folder without a finished checkpoint (no checkpoints/latest): train it further, or name one of its checkpoints/ folders", dir)
		}
		return dir, nil
	}
	if _, err := os.Stat(latest); err != nil {
		return "", fmt.Errorf("trainer: run folder %s: checkpoints/latest names %s, which does not exist: name one of its checkpoints/ folders", dir, filepath.Base(latest))
	}
	if note != nil {
		fmt.Fprintf(note, "note: %s is a run folder: using its latest checkpoint, %s\n", dir, latest)
	}
	return latest, nil
}
