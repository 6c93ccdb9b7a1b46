package trainer

import (
	"fmt"

	"github.com/artist-rl/artist/internal/progress"
)

// The hooks below show the silent phases of a run on the terminal of the
// process that reports (internal/progress draws on standard error only
// when it is a terminal, so logs and tests see nothing). They never touch
// the run's output, metrics.jsonl or the printed step lines.

// spin starts a spinner for a phase of unknown length; Stop it before
// printing.
func (r *Run) spin(format string, args ...any) *progress.Spinner {
	if !r.lead() {
		return nil
	}
	return progress.Spin(fmt.Sprintf(format, args...))
}

// evalBar is the bar of an evaluation of n tasks.
func (r *Run) evalBar(n int) *progress.Bar {
	if !r.lead() {
		return nil
	}
	return progress.Stderr(n, "evaluating")
}
