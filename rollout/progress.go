package rollout

import "sync"

// reporter passes Engine.Progress the count of a Run's trajectories that
// have ended, one call at a time and only when the count changed.
type reporter struct {
	mu    sync.Mutex
	hook  func(done, total int)
	total int
	done  int
}

// newReporter reports 0 of total at once, so that a bar shows from the
// start; a nil hook gives a reporter that does nothing.
func newReporter(hook func(done, total int), total int) *reporter {
	p := &reporter{hook: hook, total: total}
	if hook != nil {
		hook(0, total)
	}
	return p
}

// set reports done ended trajectories.
func (p *reporter) set(done int) {
	if p.hook == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if done != p.done {
		p.done = done
		p.hook(done, p.total)
	}
}

// add reports one more ended trajectory.
func (p *reporter) add() {
	if p.hook == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.hook(p.done, p.total)
}

// ended counts the rows that are done.
func ended(rows []*row) int {
	n := 0
	for _, w := range rows {
		if w.state == done {
			n++
		}
	}
	return n
}
