package trainer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/artist-rl/artist/checkpoint"
	"gopkg.in/yaml.v3"
)

// resumeKeys are the config keys that a resumed run may change: none of
// them changes what the run has trained so far, or what it would have
// trained had it never stopped, so the run goes on with the new value and
// says so in one line each. Every other key that differs from the run's
// record refuses the resume, -force or not: a changed model, tokenizer,
// optimizer, task, reward or sampling setting would make the run's
// checkpoints, metrics and config.yaml describe something other than
// what trained them.
//
//   - grpo.steps: more (or fewer) steps ahead; never fewer than the run has
//     done (loadResume refuses that). The learning rate after warmup does
//     not depend on it.
//   - eval.*: the evaluations sample with a fixed seed of their own and
//     update nothing. Results before and after the change are measured
//     differently.
//   - checkpoint.*: how often checkpoints are written and how many are
//     kept; a resumed run is bit-identical to one that never stopped.
//   - model.recompute: the same gradients bit for bit, for less memory.
//   - rollout.servers, rollout.weight_sync, rollout.vllm_model_dir,
//     rollout.batching: where and how the steps ahead decode their
//     rollouts (a run warm-started in process goes on with servers); the
//     steps done are not touched.
//
// rollout.template_drift is not among them: split or fail decides which
// sequences a chat rollout trains (or whether the step fails).
var resumeKeys = map[string]string{
	"grpo.steps":                 "the run trains to the new step count",
	"eval.every":                 "evaluations only",
	"eval.size":                  "evaluations only",
	"eval.samples":               "evaluations only",
	"eval.temperature":           "evaluations only",
	"eval.save_samples":          "evaluations only",
	"checkpoint.every":           "checkpoint schedule only",
	"checkpoint.warmstart_every": "checkpoint schedule only",
	"checkpoint.keep":            "checkpoint pruning only",
	"model.recompute":            "the same gradients, another memory use",
	"rollout.servers":            "where the steps ahead sample",
	"rollout.weight_sync":        "where the steps ahead sample",
	"rollout.vllm_model_dir":     "where the steps ahead sample",
	"rollout.batching":           "how the steps ahead decode",
}

// keyDiff is one config key whose value differs between the run's record
// and the config given: Run and Config are the values as YAML writes them.
type keyDiff struct {
	Key, Run, Config string
}

func (d keyDiff) String() string {
	return fmt.Sprintf("%s: run has %s, config says %s", d.Key, d.Run, d.Config)
}

// checkResumeConfig compares the config of r with the one its run folder
// records (config.yaml, or the newest checkpoint's train_config.yaml for a
// folder without one). It returns the differing keys that resumeKeys
// allows, for the caller to apply and announce, or an error that names
// every other differing key with both values and says how to go on. It
// writes nothing.
func (r *Run) checkResumeConfig() ([]keyDiff, error) {
	recorded, from, err := r.recordedConfig()
	if err != nil || from == "" {
		return nil, err
	}
	diffs, err := resumeDiff(recorded, r.Cfg)
	if err != nil {
		return nil, fmt.Errorf("trainer: resume: comparing with %s: %w", from, err)
	}
	var allowed, refused []keyDiff
	for _, d := range diffs {
		if _, ok := resumeKeys[d.Key]; ok {
			allowed = append(allowed, d)
		} else {
			refused = append(refused, d)
		}
	}
	if len(refused) == 0 {
		return allowed, nil
	}
	lines, back := make([]string, len(refused)), ""
	for i, d := range refused {
		lines[i] = "  " + d.String()
		if d.Run != "(unset)" && !strings.Contains(d.Run, "\n") {
			back += " -set " + shellWord(d.Key+"="+d.Run)
		}
	}
	if back != "" {
		back = " (" + strings.TrimSpace(back) + ")"
	}
	return nil, fmt.Errorf("trainer: resume: %s was trained with another config (%s):\n%s\nthese keys change what the run trains: set them back to the run's values%s to resume it, or give the new config another run_dir to start a new run",
		r.Cfg.RunDir, from, strings.Join(lines, "\n"), back)
}

// recordedConfig reads the config the run folder records and names the
// file it came from; from is "" when the folder records none.
func (r *Run) recordedConfig() (cfg Config, from string, err error) {
	from = filepath.Join(r.Cfg.RunDir, "config.yaml")
	data, err := os.ReadFile(from)
	if errors.Is(err, fs.ErrNotExist) {
		latest, lerr := checkpoint.Latest(r.Cfg.RunDir)
		if lerr != nil || latest == "" {
			return Config{}, "", lerr
		}
		from = filepath.Join(latest, "train_config.yaml")
		data, err = os.ReadFile(from)
		if errors.Is(err, fs.ErrNotExist) {
			return Config{}, "", nil
		}
	}
	if err != nil {
		return Config{}, "", fmt.Errorf("trainer: resume: %w", err)
	}
	cfg, err = parseRecorded(data)
	if err != nil {
		return Config{}, "", fmt.Errorf("trainer: resume: %s: %w: restore the file or use another run_dir", from, err)
	}
	return cfg, from, nil
}

// parseRecorded decodes a recorded config on top of DefaultConfig without
// validating it. Keys this version does not know are dropped: they can no
// longer be set, so they cannot differ.
func parseRecorded(data []byte) (Config, error) {
	cfg := DefaultConfig()
	if hasKey(data, "reward", "weights") {
		cfg.Reward.Weights = nil
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// resumeDiff lists, sorted by key, the leaf keys whose values differ
// between the recorded config a and the config b (flatYAML of each). It
// leaves out run_dir (the folder itself, wherever it was moved) and the
// sections of task families other than task.name, which the run does not
// read.
func resumeDiff(a, b Config) ([]keyDiff, error) {
	ya, err := a.Marshal()
	if err != nil {
		return nil, err
	}
	yb, err := b.Marshal()
	if err != nil {
		return nil, err
	}
	out := slices.DeleteFunc(flatDiff(ya, yb), func(d keyDiff) bool { return ignoredDiff(d.Key, a.Task.Name, b.Task.Name) })
	return out, nil
}

// ignoredDiff reports whether a difference at key says nothing about the
// run: run_dir, or a task section of a family that neither config trains.
func ignoredDiff(key, taskA, taskB string) bool {
	if key == "run_dir" {
		return true
	}
	rest, ok := strings.CutPrefix(key, "task.")
	if !ok || rest == "name" {
		return false
	}
	fam, _, _ := strings.Cut(rest, ".")
	return fam != taskA && fam != taskB
}

// shellWord quotes s for a POSIX shell when it holds anything but plain
// characters.
func shellWord(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
