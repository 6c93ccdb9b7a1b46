package trainer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/policy"
)

// A checkpoint is a folder of the run folder's checkpoints/:
//
//   - warmstart-NNNNNN: the warm start after N of its steps (every
//     checkpoint.warmstart_every steps, and after its last one);
//   - step-000000: the warm start done and evaluated, the frozen reference
//     of the KL term;
//   - step-NNNNNN: after N GRPO steps.
//
// Each holds config.json and model.safetensors (a HuggingFace Qwen2
// checkpoint; in a LoRA run's GRPO checkpoints the frozen base, with
// the adapters beside it in PEFT's layout: adapter_config.json and
// adapter_model.safetensors, base_model_name_or_path the folder itself), tokenizer.json, tokenizer_config.json and
// generation_config.json (EOS and the stop ids; chat_template.jinja too
// when the tokenizer's folder has one), train_config.yaml (the
// resolved run config), optimizer.safetensors (AdamW moments; absent in
// step-000000, where GRPO starts a fresh optimizer), state.json, and,
// written last, manifest.json with the size and SHA-256 of every other
// file. A checkpoint is written in a temporary folder and renamed into
// place, then checkpoints/latest names it; a killed run resumes from the
// newest intact checkpoint.

// trainerState is state.json: where the run is.
type trainerState struct {
	// Phase is "warmstart" while the warm start runs, "" once it is done.
	Phase string `json:"phase,omitempty"`
	// WarmStep is the warm-start steps done, in phase warmstart.
	WarmStep  int         `json:"warmstart_step,omitempty"`
	Step      int         `json:"step"` // GRPO steps done; 0 right after the warm start
	Seed      int64       `json:"seed"`
	WarmStart *EvalResult `json:"warmstart_eval,omitempty"`
	WallS     float64     `json:"wall_s"` // wall time spent before this checkpoint
	Optim     *AdamWState `json:"-"`      // in optimizer.safetensors
	// Ranks is the number of data-parallel ranks that wrote the
	// checkpoint, 0 for a process started without a launcher.
	Ranks int `json:"ranks,omitempty"`
}

// phaseWarmStart marks a checkpoint taken during the warm start.
const phaseWarmStart = "warmstart"

const latestFile = "latest"

func stepDir(step int) string { return fmt.Sprintf("step-%06d", step) }

func warmStartDir(step int) string { return fmt.Sprintf("warmstart-%06d", step) }

// dirOf is the folder name of the checkpoint of st.
func dirOf(st *trainerState) string {
	if st.Phase == phaseWarmStart {
		return warmStartDir(st.WarmStep)
	}
	return stepDir(st.Step)
}

// saveCheckpoint writes the model, tokenizer, config, optimizer and state
// of st atomically, with its manifest, and prunes old checkpoints.
func (r *Run) saveCheckpoint(st *trainerState, opt *AdamW) error {
	st.Ranks = r.ranks()
	if !r.lead() {
		return nil // rank 0 writes the run folder
	}
	root := filepath.Join(r.Cfg.RunDir, "checkpoints")
	tmp, err := os.MkdirTemp(root, ".tmp-")
	if err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := r.writeCheckpoint(tmp, st, opt); err != nil {
		return err
	}
	if err := writeManifest(tmp); err != nil {
		return err
	}
	if r.lib != nil && r.lib.Grow {
		if err := r.lib.Lib.SaveAs(r.grownLibraryPath()); err != nil {
			return fmt.Errorf("trainer: checkpoint: %w", err)
		}
	}
	name := dirOf(st)
	if err := replaceDir(tmp, filepath.Join(root, name)); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if err := setLatest(root, name); err != nil {
		return err
	}
	return pruneCheckpoints(root, r.Cfg.Checkpoint.Keep)
}

func setLatest(root, name string) error {
	if err := atomicfile.WriteFile(filepath.Join(root, latestFile), []byte(name+"\n"), 0o644); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	return nil
}

func (r *Run) writeCheckpoint(dir string, st *trainerState, opt *AdamW) error {
	if err := policy.SaveModel(dir, r.Model); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	if r.Model.LoRA() != nil {
		base, _ := filepath.Abs(filepath.Join(r.Cfg.RunDir, "checkpoints", dirOf(st)))
		if err := policy.SaveAdapter(dir, r.Model, base); err != nil {
			return fmt.Errorf("trainer: checkpoint: %w", err)
		}
	}
	if err := r.Tok.Files().Write(dir); err != nil {
		return fmt.Errorf("trainer: checkpoint: %w", err)
	}
	cfgYAML, err := r.Cfg.Marshal()
	if err != nil {
		return err
	}
	stJSON, _ := json.MarshalIndent(st, "", "  ")
	files := map[string][]byte{"train_config.yaml": cfgYAML, "state.json": stJSON}
	for name, data := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("trainer: checkpoint: %w", err)
		}
	}
	if opt != nil {
		state, err := opt.State()
		if err != nil {
			return fmt.Errorf("trainer: checkpoint: %w", err)
		}
		if err := saveOptimizer(filepath.Join(dir, "optimizer.safetensors"), state); err != nil {
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

// ckptOrder places a checkpoint folder name in the run: warm-start
// checkpoints before GRPO ones, each by step. ok is false for names that
// are not checkpoints (latest, .tmp-*, *.old, *.damaged).
func ckptOrder(name string) (phase, step int, ok bool) {
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

// listCheckpoints returns the checkpoint folder names of root, oldest
// first.
func listCheckpoints(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trainer: checkpoint: %w", err)
	}
	var names []string
	for _, e := range entries {
		if _, _, ok := ckptOrder(e.Name()); ok && e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Slice(names, func(i, j int) bool {
		pi, si, _ := ckptOrder(names[i])
		pj, sj, _ := ckptOrder(names[j])
		return pi < pj || pi == pj && si < sj
	})
	return names, nil
}

// pruneCheckpoints keeps step-000000 (the warm start, the KL reference) and
// the newest keep others, warm-start checkpoints counted with GRPO ones.
func pruneCheckpoints(root string, keep int) error {
	names, err := listCheckpoints(root)
	if err != nil {
		return err
	}
	others := names[:0:0]
	for _, n := range names {
		if n != stepDir(0) {
			others = append(others, n)
		}
	}
	for i := 0; i < len(others)-keep; i++ {
		if err := os.RemoveAll(filepath.Join(root, others[i])); err != nil {
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

// referenceModel loads the frozen warm-start policy for the KL term,
// verified against its manifest, with its layer weights in bfloat16
// when model.reference_dtype is bf16 (read straight into bfloat16, with
// no float32 copy of the whole model on the way).
func (r *Run) referenceModel() (*policy.Model, error) {
	load := policy.LoadModel
	if r.Cfg.Model.ReferenceDType == "bf16" {
		load = policy.LoadModel16
	}
	m, _, err := loadModelFolderWith(filepath.Join(r.Cfg.RunDir, "checkpoints", stepDir(0)), r.out, load)
	if err != nil {
		return nil, fmt.Errorf("trainer: reference policy: %w", err)
	}
	return m, nil
}
