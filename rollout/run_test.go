package rollout

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

func TestRunToolsConcurrently(t *testing.T) {
	var inFlight, peak atomic.Int32
	tool := toolFunc(func(ctx context.Context, in string) envs.Result {
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		// Wait for a second call to start, so a busy machine cannot hide
		// concurrency; serial calls each give up after a while.
		for deadline := time.Now().Add(300 * time.Millisecond); peak.Load() < 2 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		inFlight.Add(-1)
		return calc(ctx, in)
	})
	e, p := setup(taggedTok(), turns("<code>fmt.Println(1+1)</code>", "<answer>{out}</answer>"), sure, tool, func(c *Config) { c.GroupSize = 8 })
	for _, tr := range run(t, e, p, oneTask, 1) {
		if tr.Response != "<code>fmt.Println(1+1)</code><output>2\n</output>\n<answer>2</answer>" {
			t.Fatalf("response %q", tr.Response)
		}
	}
	procs := int32(runtime.GOMAXPROCS(0))
	if got := peak.Load(); got > procs || (procs > 1 && got < 2) {
		t.Fatalf("%d calls ran at once with GOMAXPROCS %d, want 2..GOMAXPROCS", got, procs)
	}
}

func TestRunErrors(t *testing.T) {
	tok := taggedTok()
	good := func() *Engine {
		e, _ := setup(tok, turns("<answer>1</answer>"), sure, calc, nil)
		return e
	}
	nan := make([]float32, len(tok.vocab))
	nan[3] = float32(math.NaN())
	cases := []struct {
		name string
		edit func(*Engine)
		want string
	}{
		{"no policy", func(e *Engine) { e.Policy = nil }, "needs a Policy"},
		{"bad config", func(e *Engine) { e.Config.GroupSize = 0 }, "group_size"},
		{"bad format", func(e *Engine) { e.Format.Answer = "" }, "format.answer"},
		{"no tool", func(e *Engine) { e.Tool = nil }, "Engine.Tool is nil"},
		{"mark does not fit", func(e *Engine) {
			e.Tokenizer = newCharTok(false)
			e.Config.MaxResultTokens = 4
		}, "truncation mark"},
		{"empty prompt", func(e *Engine) { e.Prompt = Plain(func(envs.Task) string { return "" }) }, "no tokens"},
		{"prompt fails", func(e *Engine) {
			e.Prompt = func(context.Context, envs.Task) (string, error) { return "", errors.New("no demonstrations") }
		}, `task "t0": no demonstrations`},
		{"NaN logits", func(e *Engine) { e.Policy = fixedPolicy{nan} }, "sequence 0: logits are empty or not finite: NaN at 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := good()
			c.edit(e)
			_, err := e.Run(context.Background(), oneTask, rand.New(rand.NewSource(1)))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "rollout: ") {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := good().Run(ctx, oneTask, rand.New(rand.NewSource(1)))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	})
	t.Run("no tasks", func(t *testing.T) {
		trajs, err := good().Run(context.Background(), nil, rand.New(rand.NewSource(1)))
		if err != nil || len(trajs) != 0 {
			t.Fatalf("got %d trajectories, %v", len(trajs), err)
		}
	})
}

func TestText(t *testing.T) {
	tok := taggedTok()
	e, p := setup(tok, turns("<code>fmt.Println(2+3)</code>", "<answer>{out}</answer>"), sure, calc, nil)
	tr := run(t, e, p, oneTask, 1)[0]
	cases := []struct {
		name string
		mark bool
		want string
	}{
		{"plain", false, "Q\n<code>fmt.Println(2+3)</code><output>5\n</output>\n<answer>5</answer>"},
		{"marked", true, "Q\n<code>fmt.Println(2+3)</code>⟦<output>5\n</output>\n⟧<answer>5</answer>"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Text(tr, tok, c.mark); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}
