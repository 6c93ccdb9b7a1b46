package rollout

import (
	"context"
	"testing"
	"time"
)

// TestPausedRowHoldsNoStep: a row that paused (its trajectory runs a
// tool call) is not waited for. Without the pause, each step of the
// other row waits at least minLinger for it; with it, steps go at once.
func TestPausedRowHoldsNoStep(t *testing.T) {
	const steps = 100
	tok := taggedTok()
	p := &scriptPolicy{tok: tok, next: func(int, string, string) string { return "a" }}
	for _, tc := range []struct {
		name  string
		pause bool
	}{{"paused", true}, {"not paused", false}} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBatcher(func() Rows { return p.NewSession(0, 0).(*scriptSession) }, 0, len(tok.vocab))
			ctx := context.Background()
			away, busy := b.Join(ctx, steps+2), b.Join(ctx, steps+2)
			defer away.Close()
			defer busy.Close()
			if _, err := away.Step([][]int{{1}}); err != nil {
				t.Fatal(err)
			}
			if tc.pause {
				away.Pause()
			}
			began := time.Now()
			for range steps {
				if _, err := busy.Step([][]int{{1}}); err != nil {
					t.Fatal(err)
				}
			}
			took := time.Since(began)
			// Waiting out the linger costs steps×minLinger at least; a
			// step of the script policy costs microseconds.
			if waited := took >= steps*minLinger; waited == tc.pause {
				t.Errorf("%d steps took %v (linger %v each): paused %v", steps, took, minLinger, tc.pause)
			}
		})
	}
}
