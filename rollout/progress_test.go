package rollout

import (
	"context"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
)

// TestProgressCountsEndedTrajectories: Engine.Progress hears 0 of the
// total first, then counts that only grow, and the whole total last, in
// the batched engine and through a Completer alike.
func TestProgressCountsEndedTrajectories(t *testing.T) {
	tasks := []envs.Task{{ID: "a", Prompt: "2+3"}, {ID: "b", Prompt: "4+5"}, {ID: "c", Prompt: "1+1"}}
	// Rows of different lengths end at different steps.
	next := func(row int, prompt, resp string) string {
		want := strings.Repeat("la", 1+row)
		rest, _ := strings.CutPrefix(want, resp)
		return rest
	}
	for _, completer := range []bool{false, true} {
		tok := taggedTok()
		e, p := setup(tok, next, 50, calc, func(c *Config) { c.Temperature = 0 })
		if completer {
			e.Completer = LocalCompleter{Policy: p, Tokenizer: tok}
			e.Parallel = 2
		}
		var got [][2]int
		e.Progress = func(done, total int) { got = append(got, [2]int{done, total}) }
		if _, err := e.Run(context.Background(), tasks, nil); err != nil {
			t.Fatal(err)
		}
		total := len(tasks) * e.Config.GroupSize
		if len(got) < 2 || got[0] != [2]int{0, total} || got[len(got)-1] != [2]int{total, total} {
			t.Fatalf("completer %v: reports %v: want 0/%d first and %d/%d last", completer, got, total, total, total)
		}
		for i := 1; i < len(got); i++ {
			if got[i][0] <= got[i-1][0] || got[i][1] != total {
				t.Errorf("completer %v: reports %v do not grow one total", completer, got)
				break
			}
		}
		if !completer && len(got) < 3 {
			t.Errorf("batched: reports %v: rows that end at different steps give steps between", got)
		}
	}
}
