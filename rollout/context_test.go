package rollout

import (
	"context"
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// shortPolicy is a scriptPolicy with a context of limit tokens whose
// sessions refuse, as *policy.Session does, a Step past it; with quiet it
// does not say its context (Context is 0), so only its sessions refuse.
type shortPolicy struct {
	*scriptPolicy
	limit int
	quiet bool
}

func (p shortPolicy) Context() int {
	if p.quiet {
		return 0
	}
	return p.limit
}

func (p shortPolicy) NewSession(n, maxLen int) Session {
	return shortSession{p.scriptPolicy.NewSession(n, maxLen).(*scriptSession), p.limit}
}

type shortSession struct {
	*scriptSession
	limit int
}

func (s shortSession) Step(feed [][]int) ([][]float32, error) {
	for i, f := range feed {
		if n := len(s.seqs[i]) + len(f); n > s.limit {
			return nil, errors.New("fake: sequence over the context")
		}
	}
	return s.scriptSession.Step(feed)
}

func shortEngine(limit int) *Engine {
	tok := taggedTok()
	p := &scriptPolicy{tok: tok, peak: 40, next: func(int, string, string) string { return "<think>long thinking</think>" }}
	cfg := DefaultConfig()
	cfg.MaxToolCalls, cfg.MaxResponseTokens = 0, 32
	return &Engine{Policy: shortPolicy{p, limit, false}, Tokenizer: tok, Format: format.DefaultFormat(), Config: cfg}
}

// TestStepErrorEndsRun: a trajectory that outgrows the policy's context
// makes Run return an error instead of a trajectory: the batch's own
// check of the context the policy says, or the session's refusal when
// the policy says none.
func TestStepErrorEndsRun(t *testing.T) {
	for _, c := range []struct {
		quiet bool
		want  string
	}{{false, "over its room 8"}, {true, "over the context"}} {
		e := shortEngine(8)
		sp := e.Policy.(shortPolicy)
		sp.quiet = c.quiet
		e.Policy = sp
		_, err := e.Run(context.Background(), []envs.Task{{ID: "t", Prompt: "q"}}, rand.New(rand.NewSource(1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("quiet %v: Run error %v, want one saying %q", c.quiet, err, c.want)
		}
	}
}

// TestCheckContext: a task fits when MaxLen is within the policy's
// context; otherwise CheckContext names it with both numbers.
func TestCheckContext(t *testing.T) {
	task := envs.Task{ID: "t7", Prompt: "q"}
	need, err := shortEngine(0).MaxLen(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		limit int
		over  bool
	}{
		{"no limit", 0, false},
		{"exactly", need, false},
		{"one short", need - 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := shortEngine(c.limit).CheckContext(context.Background(), []envs.Task{{ID: "t0", Prompt: "q"}, task})
			var ce *ContextError
			if got := errors.As(err, &ce); got != c.over {
				t.Fatalf("CheckContext = %v, want over %v", err, c.over)
			}
			if c.over && (ce.Task != "t0" || ce.Need != need || ce.Prompt != 2 || ce.Context != c.limit) {
				t.Fatalf("ContextError %+v, want task t0, need %d, prompt 2, context %d", *ce, need, c.limit)
			}
		})
	}
}
