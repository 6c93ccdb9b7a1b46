package trainer

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/artist-rl/artist/internal/progress"
)

// The hooks below show the silent phases of a run on the terminal of the
// process that reports (internal/progress draws on standard error only
// when it is a terminal, so logs and tests see nothing). They never touch
// the run's output, metrics.jsonl or the printed step lines.

// bar is a bar of total units of the phase desc (count, rate, time left).
func (r *Run) bar(total int, desc string) *progress.Bar {
	if !r.lead() {
		return nil
	}
	return progress.Stderr(total, desc)
}

// evalBar is the bar of an evaluation of n tasks.
func (r *Run) evalBar(n int) *progress.Bar { return r.bar(n, "evaluating") }

// stepProgress shows one GRPO step: a spinner until the rollouts start,
// a bar of the trajectories as they end (the engine's Progress), then a
// spinner while the rest of the step (scoring, the update) runs. A nil
// *stepProgress does nothing.
type stepProgress struct {
	w    io.Writer
	desc string
	tick time.Duration
	bar  *progress.Bar
	spin *progress.Spinner
}

// startStep shows step of steps until the returned value is stopped.
func (r *Run) startStep(step, steps int) *stepProgress {
	r.stepBar = nil
	if r.lead() && progress.IsTerminal(os.Stderr) {
		r.stepBar = newStepProgress(os.Stderr, fmt.Sprintf("GRPO step %d/%d", step, steps), time.Second)
	}
	return r.stepBar
}

func newStepProgress(w io.Writer, desc string, tick time.Duration) *stepProgress {
	p := &stepProgress{w: w, desc: desc, tick: tick}
	p.spin = progress.SpinOn(w, desc, tick)
	return p
}

// hook is the rollout engine's Progress (nil for a nil p).
func (p *stepProgress) hook() func(done, total int) {
	if p == nil {
		return nil
	}
	return p.rollouts
}

// rollouts moves the bar; each Run of the engine (a draw of dynamic
// sampling) starts one at 0 and ends it at its total.
func (p *stepProgress) rollouts(done, total int) {
	if done == 0 || p.bar == nil {
		p.spin.Stop()
		p.bar.Clear()
		p.bar = progress.Force(p.w, total, p.desc+" rollouts")
	}
	p.bar.Report(done, total)
	if done == total {
		p.bar.Clear()
		p.bar = nil
		p.spin.Stop()
		p.spin = progress.SpinOn(p.w, p.desc+" scoring and update", p.tick)
	}
}

// Stop erases what is shown; print the step's line after it.
func (p *stepProgress) Stop() {
	if p == nil {
		return
	}
	p.bar.Clear()
	p.spin.Stop()
}
