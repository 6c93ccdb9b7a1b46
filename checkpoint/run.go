package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// Dir is the folder of a run folder that holds its checkpoints.
const Dir = "checkpoints"

// LatestFile is the file of Dir that names the newest checkpoint.
const LatestFile = "latest"

// DamagedSuffix is appended to a damaged checkpoint folder moved aside on
// resume, which keeps it for inspection and out of the run.
const DamagedSuffix = ".damaged"

// StepDir is the folder name of the checkpoint after step GRPO steps.
func StepDir(step int) string { return fmt.Sprintf("step-%06d", step) }

// WarmStartDir is the folder name of the checkpoint after step warm-start
// steps.
func WarmStartDir(step int) string { return fmt.Sprintf("warmstart-%06d", step) }

// order places a checkpoint folder name in the run: warm-start
// checkpoints before GRPO ones, each by step. ok is false for names that
// are not checkpoints (latest, .tmp-*, *.old, *.damaged).
func order(name string) (phase, step int, ok bool) {
	for phase, prefix := range []string{"warmstart-", "step-"} {
		digits, found := strings.CutPrefix(name, prefix)
		if !found || len(digits) != 6 {
			continue
		}
		n, err := strconv.Atoi(digits)
		if err != nil || n < 0 {
			return 0, 0, false
		}
		return phase, n, true
	}
	return 0, 0, false
}

// List returns the checkpoint folder names of root (a run's Dir), oldest
// first: warm-start checkpoints before GRPO ones, each by step. A root
// that does not exist holds none.
func List(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	var names []string
	for _, e := range entries {
		if _, _, ok := order(e.Name()); ok && e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Slice(names, func(i, j int) bool {
		pi, si, _ := order(names[i])
		pj, sj, _ := order(names[j])
		return pi < pj || pi == pj && si < sj
	})
	return names, nil
}

// Prune keeps step-000000 (the warm start, the KL reference) and the
// newest keep other checkpoints of root, warm-start checkpoints counted
// with GRPO ones, and removes the rest.
func Prune(root string, keep int) error {
	names, err := List(root)
	if err != nil {
		return err
	}
	others := names[:0:0]
	for _, n := range names {
		if n != StepDir(0) {
			others = append(others, n)
		}
	}
	for i := 0; i < len(others)-keep; i++ {
		if err := os.RemoveAll(filepath.Join(root, others[i])); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	return nil
}

// SetLatest makes root's latest name the checkpoint folder name,
// atomically.
func SetLatest(root, name string) error {
	if err := atomicfile.WriteFile(filepath.Join(root, LatestFile), []byte(name+"\n"), 0o644); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// Latest returns the folder checkpoints/latest names in a run folder, or
// "" when there is none.
func Latest(runDir string) (string, error) {
	root := filepath.Join(runDir, Dir)
	b, err := os.ReadFile(filepath.Join(root, LatestFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	return filepath.Join(root, strings.TrimSpace(string(b))), nil
}

// notRunFolder resolves a folder that names no latest checkpoint: a
// model folder is itself; a run's checkpoints/ folder, or a run folder
// with none finished, is an error that names what to pass instead.
func notRunFolder(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, Dir)); err == nil {
		return "", fmt.Errorf("checkpoint: %s is a run folder without a finished checkpoint (no checkpoints/latest): train it further, or name one of its checkpoints/ folders", dir)
	}
	if b, err := os.ReadFile(filepath.Join(dir, LatestFile)); err == nil {
		return "", fmt.Errorf("checkpoint: %s holds a run's checkpoints, not a checkpoint: did you mean %s (its latest), or the run folder %s?",
			dir, filepath.Join(dir, strings.TrimSpace(string(b))), filepath.Dir(filepath.Clean(dir)))
	}
	return dir, nil
}

// RemoveStaleTemps deletes the temporary folders of root left by saves
// that were killed; they never became checkpoints.
func RemoveStaleTemps(root string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), ".tmp-") {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// Resolve turns the folder a user named as a checkpoint into the
// checkpoint folder to load. A folder that does not exist is an error that
// says so. A run folder (one whose checkpoints/latest names a checkpoint)
// stands for that latest checkpoint, with a note on note (nil: none).
// Any other folder is returned as it is, to be loaded as a model folder.
func Resolve(dir string, note io.Writer) (string, error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("checkpoint: folder %s does not exist: name a checkpoint (a run's checkpoints/step-NNNNNN), a run folder (its latest checkpoint is used) or a model folder", dir)
	}
	if err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("checkpoint: %s is a file: name its folder", dir)
	}
	latest, err := Latest(dir)
	if err != nil {
		return "", err
	}
	if latest == "" {
		return notRunFolder(dir)
	}
	if _, err := os.Stat(latest); err != nil {
		return "", fmt.Errorf("checkpoint: run folder %s: checkpoints/latest names %s, which does not exist: name one of its checkpoints/ folders", dir, filepath.Base(latest))
	}
	if note != nil {
		fmt.Fprintf(note, "note: %s is a run folder: using its latest checkpoint, %s\n", dir, latest)
	}
	return latest, nil
}
