package trainer

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/artist-rl/artist/collective"
)

// openMetrics opens metrics.jsonl on rank 0; the other ranks get a log
// that writes nothing.
func (r *Run) openMetrics(keep int) (*metricsLog, error) {
	if !r.lead() {
		return &metricsLog{}, nil
	}
	return openMetrics(filepath.Join(r.Cfg.RunDir, "metrics.jsonl"), keep)
}

// rankStatus is what a rank reports of its resume.
type rankStatus struct {
	Err   string `json:"err,omitempty"`
	Where string `json:"where"`
}

func where(st *trainerState) string {
	switch {
	case st == nil:
		return "the start"
	case st.Phase == phaseWarmStart:
		return fmt.Sprintf("warm-start step %d", st.WarmStep)
	}
	return fmt.Sprintf("GRPO step %d", st.Step)
}

// resume is resume on every rank of the job: rank 0 first (it compares
// the config with the run's record, refusing a changed key on every rank
// before any file is touched, and may repair the checkpoints folder),
// then the others, which must arrive at the same checkpoint with the same
// weights. A checkpoint written by a
// different number of ranks is resumed, with a message that says so; one
// written by a process without a launcher, or the reverse, is refused.
func (d *dist) resume(r *Run) (*trainerState, error) {
	var st *trainerState
	var err error
	if d.c.Rank() == 0 {
		st, err = r.resume()
	}
	if _, err0 := d.gatherStatus(st, err, 0); err0 != nil {
		return nil, err0
	}
	if d.c.Rank() != 0 {
		st, err = r.resume()
	}
	all, errAll := d.gatherStatus(st, err, -1)
	if errAll != nil {
		return nil, errAll
	}
	for rank, s := range all {
		if s.Where != all[0].Where {
			return nil, fmt.Errorf("trainer: resume: rank %d resumes from %s but rank 0 from %s: run_dir must be one folder that every rank sees (a shared file system)", rank, s.Where, all[0].Where)
		}
	}
	if err := d.checkRanks(r, st); err != nil {
		return nil, err
	}
	return st, d.checkWeights(r.Model, r.out, "at "+where(st))
}

// gatherStatus exchanges each rank's resume outcome and returns an error
// on every rank when rank only (or any rank, for -1) failed.
func (d *dist) gatherStatus(st *trainerState, err error, only int) ([]rankStatus, error) {
	s := rankStatus{Where: where(st)}
	if err != nil {
		s.Err = err.Error()
	}
	b, _ := json.Marshal(s)
	parts, cerr := collective.AllGather(d.c, b)
	if cerr != nil {
		return nil, fmt.Errorf("trainer: resume: %w", cerr)
	}
	all := make([]rankStatus, len(parts))
	for rank, p := range parts {
		json.Unmarshal(p, &all[rank])
		if all[rank].Err != "" && (only < 0 || rank == only) {
			if rank == d.c.Rank() {
				return nil, err
			}
			return nil, fmt.Errorf("trainer: rank %d: %s", rank, all[rank].Err)
		}
	}
	return all, nil
}

// checkRanks compares the number of ranks that wrote the checkpoint with
// this job's.
func (d *dist) checkRanks(r *Run, st *trainerState) error {
	if st == nil {
		return nil
	}
	n := d.c.Size()
	switch {
	case st.Ranks == 0:
		fmt.Fprintf(r.out, "resuming a run of one process without a launcher on %d ranks: the batches and their sampling streams are the same, only the order of the gradient sums changes, so the weights follow the one-process run to rounding, not bit for bit\n", n)
	case st.Ranks != n:
		fmt.Fprintf(r.out, "resuming a run of %d ranks on %d: the batches and their sampling streams are the same, only the order of the gradient sums changes, so the weights follow the %d-rank run to rounding, not bit for bit\n", st.Ranks, n, st.Ranks)
	}
	return nil
}
