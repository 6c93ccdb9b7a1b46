package trainer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/policy"
)

// A checkpoint is a folder checkpoints/step-NNNNNN of the run folder:
// config.json and model.safetensors (a HuggingFace Qwen2 checkpoint),
// tokenizer.json, train_config.yaml (the resolved run config),
// optimizer.safetensors (AdamW moments, absent at step 0) and state.json.
// It is written under a temporary name and renamed into place, then
// checkpoints/latest names it; a killed run resumes from latest.

// trainerState is state.json: where the run is.
type trainerState struct {
	Step      int         `json:"step"` // GRPO steps done; 0 right after the warm start
	Seed      int64       `json:"seed"`
	WarmStart *EvalResult `json:"warmstart_eval,omitempty"`
	WallS     float64     `json:"wall_s"` // wall time spent before this checkpoint
	Optim     *AdamWState `json:"-"`      // in optimizer.safetensors
}

const latestFile = "latest"

func stepDir(step int) string { return fmt.Sprintf("step-%06d", step) }

// saveCheckpoint writes the model, tokenizer, config, optimizer and state of
// st.Step atomically and prunes old checkpoints.
func (r *Run) saveCheckpoint(st *trainerState, opt *AdamW) error {
	root := filepath.Join(r.Cfg.RunDir, "checkpoints")
	tmp, err := os.MkdirTemp(root, ".tmp-")
	if err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := r.writeCheckpoint(tmp, st, opt); err != nil {
		return err
	}
	if r.lib != nil && r.lib.Grow {
		if err := r.lib.Lib.SaveAs(r.grownLibraryPath()); err != nil {
			return fmt.Errorf("trainer: checkpoint: %w", err)
		}
	}
	final := filepath.Join(root, stepDir(st.Step))
	if err := replaceDir(tmp, final); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(root, latestFile), []byte(stepDir(st.Step)+"\n"), 0o644); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	return pruneCheckpoints(root, r.Cfg.Checkpoint.Keep)
}

func (r *Run) writeCheckpoint(dir string, st *trainerState, opt *AdamW) error {
	if err := policy.SaveModel(dir, r.Model); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	cfgYAML, err := r.Cfg.Marshal()
	if err != nil {
		return err
	}
	stJSON, _ := json.MarshalIndent(st, "", "  ")
	files := map[string][]byte{"tokenizer.json": r.TokJSON, "train_config.yaml": cfgYAML, "state.json": stJSON}
	for name, data := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("trainer: checkpoint: %w", err)
		}
	}
	if opt != nil {
		if err := saveOptimizer(filepath.Join(dir, "optimizer.safetensors"), opt.State()); err != nil {
			return err
		}
	}
	return nil
}

// replaceDir renames src onto dst, replacing an existing dst.
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

// pruneCheckpoints keeps step-000000 (the warm start, the KL reference) and
// the newest keep others.
func pruneCheckpoints(root string, keep int) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	var steps []string
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "step-") && e.Name() != stepDir(0) && !strings.HasSuffix(e.Name(), ".old") {
			steps = append(steps, e.Name())
		}
	}
	sort.Strings(steps)
	for i := 0; i < len(steps)-keep; i++ {
		if err := os.RemoveAll(filepath.Join(root, steps[i])); err != nil {
			return fmt.Errorf("trainer: checkpoint: %w", err)
		}
	}
	return nil
}

// LatestCheckpoint returns the folder checkpoints/latest names in a run
// folder, or "" when there is none.
func LatestCheckpoint(runDir string) (string, error) {
	root := filepath.Join(runDir, "checkpoints")
	b, err := os.ReadFile(filepath.Join(root, latestFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("trainer: checkpoint: %w", err)
	}
	return filepath.Join(root, strings.TrimSpace(string(b))), nil
}

// resume loads the latest checkpoint of the run folder into the run, or
// returns nil when the run starts fresh.
func (r *Run) resume() (*trainerState, error) {
	dir, err := LatestCheckpoint(r.Cfg.RunDir)
	if err != nil || dir == "" {
		return nil, err
	}
	var st trainerState
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return nil, fmt.Errorf("trainer: resume: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("trainer: resume: %s: %w", dir, err)
	}
	if st.Seed != r.Cfg.Seed {
		return nil, fmt.Errorf("trainer: resume: %s was trained with seed %d but the config says %d: use another run_dir or the same seed", r.Cfg.RunDir, st.Seed, r.Cfg.Seed)
	}
	tok, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("trainer: resume: %w", err)
	}
	if string(tok) != string(r.TokJSON) {
		return nil, fmt.Errorf("trainer: resume: %s was trained with another tokenizer than the config builds: use another run_dir", dir)
	}
	m, err := policy.LoadModel(dir)
	if err != nil {
		return nil, fmt.Errorf("trainer: resume: %w", err)
	}
	if m.Config != r.Model.Config {
		return nil, fmt.Errorf("trainer: resume: %s holds a model of another shape than the config's: use another run_dir", dir)
	}
	r.Model = m
	r.priorWall = st.WallS
	if st.Step > 0 {
		o, err := loadOptimizer(filepath.Join(dir, "optimizer.safetensors"))
		if err != nil {
			return nil, err
		}
		st.Optim = &o
	}
	fmt.Fprintf(r.out, "resuming %s from %s (GRPO step %d)\n", r.Cfg.RunDir, filepath.Base(dir), st.Step)
	return &st, nil
}

// referenceModel loads the frozen warm-start policy for the KL term.
func (r *Run) referenceModel() (*policy.Model, error) {
	m, err := policy.LoadModel(filepath.Join(r.Cfg.RunDir, "checkpoints", stepDir(0)))
	if err != nil {
		return nil, fmt.Errorf("trainer: reference policy: %w", err)
	}
	return m, nil
}
