package trainer

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
)

// A run's checkpoints are folders of its checkpoints/ (package checkpoint
// describes the format): warmstart-NNNNNN during the warm start (every
// checkpoint.warmstart_every steps, and after its last one), step-000000
// once the warm start is done and evaluated (the frozen reference of the
// KL term; it has no optimizer.safetensors, as GRPO starts a fresh
// optimizer), and step-NNNNNN after N GRPO steps. A killed run resumes
// from the newest intact checkpoint.

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
	// PeakRSSMiB is the highest peak resident memory, in MiB, of the
	// processes of the run up to this checkpoint (Run.peakRSS).
	PeakRSSMiB float64 `json:"peak_rss_mib,omitempty"`
}

// phaseWarmStart marks a checkpoint taken during the warm start.
const phaseWarmStart = "warmstart"

// dirOf is the folder name of the checkpoint of st.
func dirOf(st *trainerState) string {
	if st.Phase == phaseWarmStart {
		return checkpoint.WarmStartDir(st.WarmStep)
	}
	return checkpoint.StepDir(st.Step)
}

// checkpointsDir is the run folder's checkpoints/.
func (r *Run) checkpointsDir() string { return filepath.Join(r.Cfg.RunDir, checkpoint.Dir) }

// saveCheckpoint writes the model, tokenizer, config, optimizer and state
// of st atomically, with its manifest, and prunes old checkpoints.
func (r *Run) saveCheckpoint(st *trainerState, opt optimizer) error {
	st.Ranks = r.red.size()
	st.PeakRSSMiB = math.Round(r.peakRSS())
	if !r.lead() {
		return nil // rank 0 writes the run folder
	}
	cfgYAML, err := r.Cfg.Marshal()
	if err != nil {
		return err
	}
	c := checkpoint.Contents{Model: r.Model, Tok: r.Tok, Config: cfgYAML, State: st}
	if opt != nil {
		state, err := opt.State()
		if err != nil {
			return fmt.Errorf("trainer: checkpoint: %w", err)
		}
		c.Optimizer = &state
	}
	if r.lib != nil && r.lib.Grow {
		c.BeforeCommit = func() error { return r.lib.Lib.SaveAs(r.grownLibraryPath()) }
	}
	if err := checkpoint.Save(r.checkpointsDir(), dirOf(st), c, r.Cfg.Checkpoint.Keep); err != nil {
		return fmt.Errorf("trainer: %w", err)
	}
	return nil
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
	m, _, err := checkpoint.LoadModel(filepath.Join(r.checkpointsDir(), checkpoint.StepDir(0)), r.out, load)
	if err != nil {
		return nil, fmt.Errorf("trainer: reference policy: %w", err)
	}
	return m, nil
}

// OpenCheckpoint prepares a run around a checkpoint folder: its
// train_config.yaml (with the sets applied), tokenizer and weights, loaded
// and verified as checkpoint.Open does (the weights as the folder holds
// them, float32, even where the config's model.lora.base_dtype is bf16:
// the run evaluates or samples, it does not train). A folder without
// train_config.yaml (e.g. a plain HuggingFace checkpoint) uses
// DefaultConfig. It is what `artist eval` and `artist sample` use.
func OpenCheckpoint(ctx context.Context, dir string, sets []string, out io.Writer) (*Run, error) {
	cfgPath := filepath.Join(dir, "train_config.yaml")
	if _, err := checkpoint.Verify(dir, "train_config.yaml"); err != nil {
		return nil, err
	}
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
	tokPath := filepath.Join(dir, policy.TokenizerJSONFile)
	if _, err := os.Stat(tokPath); err != nil {
		return nil, fmt.Errorf("trainer: checkpoint %s has no tokenizer.json: copy the tokenizer files of the model beside its weights", dir)
	}
	cfg.Tokenizer = tokPath
	cfg.Init = dir
	return setup(ctx, cfg, out, false)
}
