package trainer

import (
	"github.com/artist-rl/artist/atlass"
)

// atlassStats counts what the phases of one step did, over its tasks.
type atlassStats struct {
	needsTools, selected, generated, genAttempts  int
	failed, awaiting, solverTools, noFit, replies int
	failedIn                                      map[string]int // tasks whose phases failed, by the phase that gave up
}

// add counts the transcript of one task whose group was solved with the
// approved tools ids (nil when the listing did not fit: fit false).
func (s *atlassStats) add(tr *atlass.Transcript, ids []int64, fit bool) {
	for _, p := range tr.Phases {
		s.replies += len(p.Attempts)
		switch p.Phase {
		case "plan":
			if plan, ok := p.Output.(atlass.Plan); ok && plan.NeedsTools {
				s.needsTools++
			}
		case "generate":
			s.genAttempts += len(p.Attempts)
		}
	}
	for _, t := range tr.Tools {
		switch {
		case t.How == "selected":
			s.selected++
		case t.How == "generated":
			s.generated++
		}
	}
	if tr.Status == atlass.Failed {
		s.failed++
		if s.failedIn == nil {
			s.failedIn = map[string]int{}
		}
		if n := len(tr.Phases); n > 0 {
			s.failedIn[tr.Phases[n-1].Phase]++
		}
	}
	approved := map[int64]bool{}
	for _, id := range ids {
		approved[id] = true
	}
	for _, t := range tr.Tools {
		if !approved[t.ID] && t.State == atlass.Pending {
			s.awaiting++
			break
		}
	}
	s.solverTools += len(ids)
	if !fit {
		s.noFit++
	}
}

// put records the counts of n tasks in m: atlass/needs_tools,
// atlass/phase_failed (and atlass/phase_failed/PHASE by the phase that
// gave up), atlass/awaiting_approval (a needed tool stayed pending, so
// the group solved without it) and atlass/no_fit (the listing did not fit
// the context) as fractions of the tasks; atlass/selected,
// atlass/generated, atlass/gen_attempts (functions the generator wrote),
// atlass/solver_tools (approved tools the group got) and atlass/replies
// (phase replies of the policy) as means per task.
func (s *atlassStats) put(m Metrics, n int) {
	if n == 0 {
		return
	}
	f := float64(n)
	m["atlass/needs_tools"] = float64(s.needsTools) / f
	m["atlass/selected"] = float64(s.selected) / f
	m["atlass/generated"] = float64(s.generated) / f
	m["atlass/gen_attempts"] = float64(s.genAttempts) / f
	m["atlass/phase_failed"] = float64(s.failed) / f
	m["atlass/awaiting_approval"] = float64(s.awaiting) / f
	m["atlass/solver_tools"] = float64(s.solverTools) / f
	m["atlass/no_fit"] = float64(s.noFit) / f
	m["atlass/replies"] = float64(s.replies) / f
	for phase, k := range s.failedIn {
		m["atlass/phase_failed/"+phase] = float64(k) / f
	}
}
