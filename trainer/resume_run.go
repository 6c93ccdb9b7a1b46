package trainer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/internal/atomicfile"
	"github.com/artist-rl/artist/internal/sysmem"
)

// resumeInfo is what resuming learned of the run's earlier processes.
type resumeInfo struct {
	// applied are the keys of resumeKeys whose values the config changes.
	applied []keyDiff
	// peakRSS is the highest peak resident memory, in MiB, that an earlier
	// process of the run recorded (its checkpoints' state, summary.json).
	peakRSS float64
}

// open prepares the run folder and resumes the run: st is the state to go
// on from (nil for a fresh run). A run that is already finished (its last
// GRPO checkpoint and summary.json written, with the config's grpo.steps)
// returns its recorded summary as done, says where its results are, and
// changes no file. Otherwise the changes of resumeKeys are announced, one
// line each, and config.yaml records the config (rewritten only when its
// bytes change).
func (r *Run) open() (st *trainerState, done *Summary, err error) {
	if err := os.MkdirAll(r.checkpointsDir(), 0o755); err != nil {
		return nil, nil, fmt.Errorf("trainer: run folder: %w", err)
	}
	if st, err = r.red.resume(r); err != nil {
		return nil, nil, err
	}
	var prev *Summary
	if st != nil {
		prev = readSummary(r.summaryPath())
	}
	if prev != nil {
		r.resumed.peakRSS = max(r.resumed.peakRSS, prev.PeakRSSMiB)
		if st.Phase == "" && st.Step == r.Cfg.GRPO.Steps {
			r.sayFinished(st)
			return st, prev, nil
		}
	}
	for _, d := range r.resumed.applied {
		fmt.Fprintf(r.out, "resume: %s: applied (%s)\n", d, resumeKeys[d.Key])
	}
	return st, nil, r.recordConfig()
}

// summaryPath is the run folder's summary.json.
func (r *Run) summaryPath() string { return filepath.Join(r.Cfg.RunDir, "summary.json") }

// readSummary reads the summary.json at path, nil when there is none or
// it cannot be read (the run then writes it again).
func readSummary(path string) *Summary {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var s Summary
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	return &s
}

// sayFinished tells that the run has nothing left to do and where its
// results are, and that the keys it would apply change nothing now.
func (r *Run) sayFinished(st *trainerState) {
	dir := r.Cfg.RunDir
	fmt.Fprintf(r.out, "run %s is finished (GRPO step %d of %d): nothing to do, no file changed; its results are in %s, %s and %s\n",
		dir, st.Step, r.Cfg.GRPO.Steps, r.summaryPath(), filepath.Join(dir, "metrics.jsonl"), filepath.Join(r.checkpointsDir(), dirOf(st)))
	for _, d := range r.resumed.applied {
		fmt.Fprintf(r.out, "resume: %s: not applied, the run is finished (artist eval measures a checkpoint with other settings)\n", d)
	}
	fmt.Fprintf(r.out, "to train on, raise grpo.steps; to train again from the start, use another run_dir\n")
}

// recordConfig writes the run's config as config.yaml of the run folder
// (rank 0 only), leaving the file alone when it already holds these bytes.
func (r *Run) recordConfig() error {
	if !r.lead() {
		return nil
	}
	resolved, err := r.Cfg.Marshal()
	if err != nil {
		return err
	}
	path := filepath.Join(r.Cfg.RunDir, "config.yaml")
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, resolved) {
		return nil
	}
	if err := atomicfile.WriteFile(path, resolved, 0o644); err != nil {
		return fmt.Errorf("trainer: %w", err)
	}
	return nil
}

// peakRSS is the highest peak resident memory of the run's processes so
// far, in MiB: this one's and what the earlier ones recorded.
func (r *Run) peakRSS() float64 {
	return max(r.resumed.peakRSS, sysmem.PeakRSSMiB())
}
