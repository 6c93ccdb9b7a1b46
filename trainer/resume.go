package trainer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
)

// resume loads the newest intact checkpoint of the run folder into the run,
// or returns nil when the run starts fresh.
//
// A folder with checkpoints is first compared with the run's config
// (checkResumeConfig): a key that changes what the run trains refuses the
// resume before any file of the folder is touched; the keys of resumeKeys
// that differ are kept in r.resumed for the caller to announce.
//
// Checkpoints are tried newest first. One that fails its manifest (a file
// missing, truncated or changed) or cannot be read is reported on the
// run's output, naming the checkpoint and the file, and the next older one
// is tried. Once an intact one is found, the damaged newer ones are moved
// aside as NAME.damaged (kept for inspection, skipped by pruning and later
// resumes) and latest names the intact one. When checkpoints exist but
// none is intact, resume fails, leaving them in place, rather than start
// the run over. A checkpoint of another seed, tokenizer or model shape is
// an error, not damage.
func (r *Run) resume() (*trainerState, error) {
	root := r.checkpointsDir()
	names, err := checkpoint.List(root)
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		if r.resumed.applied, err = r.checkResumeConfig(); err != nil {
			return nil, err
		}
	}
	checkpoint.RemoveStaleTemps(root)
	shape := r.Model.Config
	if len(names) > 0 {
		r.releaseModel()
	}
	var damaged, why []string
	for i := len(names) - 1; i >= 0; i-- {
		name := names[i]
		st, err := r.loadResume(filepath.Join(root, name), shape)
		var ce *checkpoint.Error
		if errors.As(err, &ce) {
			fmt.Fprintf(r.out, "%v\n", err)
			damaged, why = append(damaged, name), append(why, fmt.Sprintf("%s (%s)", name, orWhole(ce.File)))
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, d := range damaged {
			aside := d + checkpoint.DamagedSuffix
			os.RemoveAll(filepath.Join(root, aside))
			if err := os.Rename(filepath.Join(root, d), filepath.Join(root, aside)); err != nil {
				return nil, fmt.Errorf("trainer: resume: moving the damaged %s aside: %w", d, err)
			}
			fmt.Fprintf(r.out, "trainer: moved %s aside to %s\n", d, aside)
		}
		if latest, _ := checkpoint.Latest(r.Cfg.RunDir); filepath.Base(latest) != name {
			// latest named a damaged folder, or a kill came between a
			// checkpoint's rename and latest.
			if err := checkpoint.SetLatest(root, name); err != nil {
				return nil, fmt.Errorf("trainer: resume: %w", err)
			}
		}
		if len(damaged) > 0 {
			fmt.Fprintf(r.out, "trainer: resuming from %s, the newest intact checkpoint (damaged: %s)\n", name, strings.Join(why, ", "))
		}
		where := fmt.Sprintf("GRPO step %d", st.Step)
		if st.Phase == phaseWarmStart {
			where = fmt.Sprintf("warm-start step %d", st.WarmStep)
		}
		fmt.Fprintf(r.out, "resuming %s from %s (%s)\n", r.Cfg.RunDir, name, where)
		return st, nil
	}
	if len(damaged) > 0 {
		return nil, fmt.Errorf("trainer: resume: every checkpoint of %s is damaged (%s): delete the checkpoints folder to start the run over", root, strings.Join(why, ", "))
	}
	return nil, nil
}

func orWhole(file string) string {
	if file == "" {
		return "the folder"
	}
	return file
}

// releaseModel lets go of the model Setup built (fresh, or the init
// folder's) before a checkpoint replaces it, and collects it, so that the
// checkpoint's weights take its memory rather than add to it. r.Model is
// nil until loadResume sets it; a resume that loads no checkpoint fails.
func (r *Run) releaseModel() {
	r.Model = nil
	runtime.GC()
}

// loadResume verifies one checkpoint and loads it into the run
// (openResume), refusing a model of another shape than the run's. A file
// that fails the manifest or cannot be read or parsed is a
// *checkpoint.Error naming it; a checkpoint of another run is a plain error.
func (r *Run) loadResume(dir string, shape policy.Config) (*trainerState, error) {
	ck, err := r.openResume(dir)
	if err != nil {
		var ce *checkpoint.Error
		if !errors.As(err, &ce) {
			err = &checkpoint.Error{Dir: dir, File: damagedFile(err), Err: err}
		}
		return nil, err
	}
	var st trainerState
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err == nil {
		err = json.Unmarshal(b, &st)
	}
	if err != nil {
		return nil, &checkpoint.Error{Dir: dir, File: "state.json", Err: err}
	}
	if st.Seed != r.Cfg.Seed {
		return nil, fmt.Errorf("trainer: resume: %s was trained with seed %d but the config says %d: use another run_dir or the same seed", r.Cfg.RunDir, st.Seed, r.Cfg.Seed)
	}
	if err := r.checkTokenizer(dir, ck.Tok); err != nil {
		return nil, err
	}
	if ck.Model.Config != shape {
		return nil, fmt.Errorf("trainer: resume: %s holds a model of another shape than the config's: use another run_dir", dir)
	}
	if st.Phase == phaseWarmStart && st.WarmStep > r.Cfg.WarmStart.Steps {
		return nil, fmt.Errorf("trainer: resume: %s is at warm-start step %d but warmstart.steps is %d: use the run's config or another run_dir", dir, st.WarmStep, r.Cfg.WarmStart.Steps)
	}
	if st.Phase == "" && st.Step > r.Cfg.GRPO.Steps {
		return nil, fmt.Errorf("trainer: resume: %s: grpo.steps: run has done %d, config says %d: a run cannot go back; set grpo.steps to %d or more, or use another run_dir", r.Cfg.RunDir, st.Step, r.Cfg.GRPO.Steps, st.Step)
	}
	if st.Phase == phaseWarmStart || st.Step > 0 {
		o, err := checkpoint.LoadOptimizer(filepath.Join(dir, checkpoint.OptimizerFile))
		if err != nil {
			return nil, &checkpoint.Error{Dir: dir, File: checkpoint.OptimizerFile, Err: err}
		}
		st.Optim = &o
	}
	r.Model = ck.Model
	r.priorWall = st.WallS
	r.resumed.peakRSS = max(r.resumed.peakRSS, st.PeakRSSMiB)
	return &st, nil
}

// openResume is checkpoint.Open with the model of a GRPO checkpoint over
// a bfloat16 base (resumesBase16) read by policy.LoadModel16: its frozen
// layer weights go from the file (BF16, the bits the run held) straight
// into bfloat16, never held in float32, and its adapters are attached,
// trainable; the model is the one policy.LoadModel, the adapters and
// freezeBase would give, bit for bit. Other checkpoints are read by
// policy.LoadModel.
func (r *Run) openResume(dir string) (*checkpoint.Folder, error) {
	load := policy.LoadModel
	if r.resumesBase16(dir) {
		load = policy.LoadModel16
	}
	m, verified, err := checkpoint.LoadModel(dir, r.out, load)
	if err != nil {
		return nil, err
	}
	tok, err := checkpoint.LoadTokenizer(filepath.Join(dir, policy.TokenizerJSONFile))
	if err != nil {
		return nil, err
	}
	return &checkpoint.Folder{Dir: dir, Model: m, Tok: tok, Verified: verified}, nil
}

// resumesBase16 reports whether the checkpoint dir resumes GRPO over a
// base frozen in bfloat16: model.lora.base_dtype bf16 and a state.json of
// the GRPO phase (step-000000 included, which freezeBase freezes before
// the first step). A warm-start checkpoint, whose full weights train on,
// is not, nor is one whose state.json cannot be read or parsed
// (loadResume refuses it, after the manifest check names the damage).
func (r *Run) resumesBase16(dir string) bool {
	if !r.Cfg.Model.LoRA.Base16() {
		return false
	}
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	var st trainerState
	return err == nil && json.Unmarshal(b, &st) == nil && st.Phase == ""
}

// damagedFile guesses which file of a checkpoint an unreadable-checkpoint
// error is about, for folders without a manifest.
func damagedFile(err error) string {
	msg := err.Error()
	for _, f := range []string{"model.safetensors.index.json", "model.safetensors", policy.TokenizerConfigFile,
		policy.GenerationConfigFile, policy.TokenizerJSONFile, "config.json"} {
		if strings.Contains(msg, f) {
			return f
		}
	}
	return ""
}

// checkTokenizer requires the checkpoint's tokenizer to be the run's: the
// same tokenizer.json, EOS and stop ids. A checkpoint written before
// checkpoints carried tokenizer_config.json and generation_config.json
// has the <|endoftext|> fallback as its EOS; the run goes on with the
// config's EOS and stop ids, with a warning.
func (r *Run) checkTokenizer(dir string, tok *policy.Tokenizer) error {
	if string(tok.Files().JSON) != string(r.Tok.Files().JSON) {
		return fmt.Errorf("trainer: resume: %s was trained with another tokenizer.json than the config builds: use another run_dir", dir)
	}
	if tok.EOS() == r.Tok.EOS() && slices.Equal(tok.StopIDs(), r.Tok.StopIDs()) {
		return nil
	}
	if !fileExists(filepath.Join(dir, policy.TokenizerConfigFile)) && !fileExists(filepath.Join(dir, policy.GenerationConfigFile)) {
		fmt.Fprintf(r.out, "trainer: warning: %s has no %s or %s (an older checkpoint); going on with EOS %d and stop ids %v from the config's tokenizer\n",
			dir, policy.TokenizerConfigFile, policy.GenerationConfigFile, r.Tok.EOS(), r.Tok.StopIDs())
		return nil
	}
	return fmt.Errorf("trainer: resume: %s stops on ids %v (EOS %d) but the config's tokenizer on %v (EOS %d): use the run's tokenizer folder or another run_dir",
		dir, tok.StopIDs(), tok.EOS(), r.Tok.StopIDs(), r.Tok.EOS())
}
