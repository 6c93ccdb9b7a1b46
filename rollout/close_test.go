package rollout

import (
	"testing"

	"github.com/artist-rl/artist/envs"
)

// closingPolicy counts the sessions it starts and those closed.
type closingPolicy struct {
	*scriptPolicy
	opened, closed *int
}

func (c closingPolicy) NewSession(n, maxLen int) Session {
	*c.opened++
	return closingSession{c.scriptPolicy.NewSession(n, maxLen).(Rows), c.closed}
}

type closingSession struct {
	Rows
	closed *int
}

func (s closingSession) Close() { *s.closed++ }

// TestRunClosesItsSession checks that the engine closes every session it
// starts (a device-backed session frees its caches on Close).
func TestRunClosesItsSession(t *testing.T) {
	e, p := setup(taggedTok(), turns("<answer>5</answer>"), sure, calc, nil)
	var opened, closed int
	e.Policy = closingPolicy{p, &opened, &closed}
	runCounted(t, e, []envs.Task{{ID: "a", Prompt: "q", Answer: "5"}, {ID: "b", Prompt: "r", Answer: "5"}})
	if opened == 0 || closed != opened {
		t.Errorf("%d sessions started, %d closed", opened, closed)
	}
}
