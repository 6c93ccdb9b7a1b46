package trainer

import (
	"fmt"

	"github.com/artist-rl/artist/rollout"
)

// Trajectories that the chat template split (rollout.template_drift:
// split): each of their sequences trains as a row of its own.

// trainingRows returns the update's rows for the trajectories train and
// their advantages adv (one per trajectory): each trajectory's sequences
// in order (rollout.Trajectory.Rows: the trajectory itself when it was
// never split), each with the trajectory's advantage. Groups and
// advantages stay per trajectory; the update and its loss aggregation
// see every row as a sequence, with its own tokens, mask and sampler
// log-probs. Without a split trajectory it returns train and adv as
// they are. A data-parallel rank owns the rows of the trajectories it
// rolled out.
func (r *Run) trainingRows(train []*rollout.Trajectory, adv []float64) ([]*rollout.Trajectory, []float64) {
	n := 0
	for _, t := range train {
		n += len(t.Splits) + 1
	}
	if n == len(train) {
		return train, adv
	}
	rows := make([]*rollout.Trajectory, 0, n)
	radv := make([]float64, 0, n)
	for i, t := range train {
		split := t.Rows()
		if a, ok := r.red.(interface {
			adopt(*rollout.Trajectory, []*rollout.Trajectory)
		}); ok && len(split) > 1 {
			a.adopt(t, split)
		}
		for _, row := range split {
			rows = append(rows, row)
			radv = append(radv, adv[i])
		}
	}
	return rows, radv
}

// adopt makes the rows of trajectory t this rank's when t is.
func (d *dist) adopt(t *rollout.Trajectory, rows []*rollout.Trajectory) {
	if !d.mine[t] {
		return
	}
	for _, row := range rows {
		d.mine[row] = true
	}
}

// noteTemplateSplits says once per run, in the run log, that the chat
// template re-rendered some conversations at a turn, so that they train
// as several sequences.
func (r *Run) noteTemplateSplits(trajs []*rollout.Trajectory) {
	n, seqs := 0, 0
	for _, t := range trajs {
		if len(t.Splits) > 0 {
			n++
			seqs += len(t.Splits) + 1
		}
	}
	if n == 0 || r.splitNoted || r.Chat == nil {
		return
	}
	r.splitNoted = true
	fmt.Fprintf(r.out, "trainer: note: the chat template of %s is not append-only: it re-renders %d of %d conversations of this batch at a tool or user turn (as Qwen3's drops earlier <think> blocks), so they were split there (rollout.template_drift: %s) into %d sequences, each continuing from the template's rendering; each sequence trains as its own row with its trajectory's advantage\n",
		r.Chat.Template.Origin(), n, len(trajs), rollout.DriftSplit, seqs)
}
