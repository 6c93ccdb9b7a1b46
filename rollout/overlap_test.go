package rollout

import (
	"context"
	"math/rand"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

// TestRunOverlapsToolCalls checks that a row's tool call runs while the
// session decodes the other rows, and that the trajectories are those of
// a tool that answers at once: where decoding waits for nothing, the same
// tokens and the same random draws.
func TestRunOverlapsToolCalls(t *testing.T) {
	// Task "call" runs the tool first; task "talk" writes a long answer.
	script := func(_ int, prompt, resp string) string {
		if strings.Contains(prompt, "call") {
			return turns("<code>fmt.Println(2+3)</code>", "<answer>{out}</answer>")(0, prompt, resp)
		}
		return turns("<answer>"+strings.Repeat("x", 40)+"</answer>")(0, prompt, resp)
	}
	tasks := []envs.Task{{ID: "a", Prompt: "call", Answer: "5"}, {ID: "b", Prompt: "talk", Answer: "x"}}
	// Both the calls and the decoding steps take long enough that a
	// call started before a step overlaps it unless decoding waits.
	var inCall, during atomic.Int64
	var slow toolFunc = func(ctx context.Context, in string) envs.Result {
		inCall.Add(1)
		defer inCall.Add(-1)
		time.Sleep(30 * time.Millisecond)
		return calc(ctx, in)
	}
	step := func() {
		time.Sleep(10 * time.Millisecond)
		if inCall.Load() > 0 {
			during.Add(1)
		}
	}
	runWith := func(tool envs.Tool, count bool) []*Trajectory {
		e, p := setup(taggedTok(), script, sure, tool, nil)
		if count {
			e.Policy = hookedPolicy{p, step}
			return runCounted(t, e, tasks)
		}
		return run(t, e, p, tasks, 7)
	}
	want := runWith(calc, false)
	got := runWith(slow, true)
	if during.Load() == 0 {
		t.Error("the session did not decode while a tool call ran")
	}
	for i := range want {
		if !reflect.DeepEqual(got[i].Tokens, want[i].Tokens) || !reflect.DeepEqual(got[i].LogProbs, want[i].LogProbs) {
			t.Errorf("row %d differs from the run whose tool answered at once:\n got %q\nwant %q", i, got[i].Response, want[i].Response)
		}
	}
}

// hookedPolicy runs a hook at the end of every Step of its
// sessions.
type hookedPolicy struct {
	*scriptPolicy
	hook func()
}

func (c hookedPolicy) NewSession(n, maxLen int) Session {
	return hookedSession{c.scriptPolicy.NewSession(n, maxLen).(Rows), c.hook}
}

type hookedSession struct {
	Rows
	hook func()
}

func (s hookedSession) Step(feed [][]int) ([][]float32, error) {
	defer s.hook()
	return s.Rows.Step(feed)
}

func runCounted(t *testing.T, e *Engine, tasks []envs.Task) []*Trajectory {
	t.Helper()
	trajs, err := e.Run(context.Background(), tasks, rand.New(rand.NewSource(7)))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return trajs
}
