package rollout

import (
	"context"
	"math"
	"math/rand"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// noisy is a model that mostly follows a script with tool calls but
// samples off it often, so the seed matters.
func noisy(tok *charTok, peak float32, edit func(*Config)) (*Engine, *scriptPolicy) {
	slow := toolFunc(func(ctx context.Context, in string) envs.Result {
		time.Sleep(time.Duration(len(in)%3) * time.Millisecond) // shuffle finishing order
		return calc(ctx, in)
	})
	script := turns("<think>add</think><code>fmt.Println(2+3)</code>", "<answer>{out}</answer>")
	return setup(tok, script, peak, slow, func(c *Config) {
		c.GroupSize = 4
		c.MaxResponseTokens = 40
		if edit != nil {
			edit(c)
		}
	})
}

var twoTasks = []envs.Task{{ID: "a", Prompt: "A"}, {ID: "b", Prompt: "B"}}

func TestRunDeterminism(t *testing.T) {
	sample := func(seed int64) []*Trajectory {
		e, p := noisy(taggedTok(), 9, nil)
		return run(t, e, p, twoTasks, seed)
	}
	a, b, c := sample(7), sample(7), sample(8)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave different trajectories")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds gave the same trajectories")
	}
	calls, stops := 0, map[StopReason]bool{}
	for _, tr := range append(a, c...) {
		calls += len(tr.Calls)
		stops[tr.Stop] = true
	}
	if calls == 0 || len(stops) < 2 {
		t.Fatalf("%d calls and stops %v: the noisy model should call tools and stop in several ways", calls, stops)
	}
}

func TestRunGreedy(t *testing.T) {
	// A weak peak: the argmax is often the jitter, not the script.
	e, p := noisy(taggedTok(), 0.5, func(c *Config) { c.Temperature = 0 })
	trajs := run(t, e, p, twoTasks, 1)
	for i, tr := range trajs {
		for k := tr.PromptLen; k < len(tr.Tokens); k++ {
			if tr.Mask[k] == 0 {
				continue
			}
			if top, _ := argmax(p.logits(i, tr.Tokens[:k], tr.PromptLen)); tr.Tokens[k] != top {
				t.Fatalf("row %d token %d: sampled %d, argmax %d", i, k, tr.Tokens[k], top)
			}
		}
	}
	e2, _ := noisy(taggedTok(), 0.5, func(c *Config) { c.Temperature = 0 })
	other, err := e2.Run(context.Background(), twoTasks, nil)
	if err != nil || !reflect.DeepEqual(trajs, other) {
		t.Fatalf("greedy runs differ (err %v)", err)
	}
}

// fixedPolicy always predicts the same distribution.
type fixedPolicy struct{ logits []float32 }

func (p fixedPolicy) NewSession(n, _ int) Session { return &fixedSession{p.logits, n} }

func (p fixedPolicy) Context() int { return 0 }

// fixedSession is Rows of n sequences that all get the same logits.
type fixedSession struct {
	logits []float32
	n      int
}

func (s *fixedSession) Add() int  { s.n++; return s.n - 1 }
func (s *fixedSession) Reset(int) {}
func (s *fixedSession) Size() int { return s.n }

func (s *fixedSession) Step(feed [][]int) ([][]float32, error) {
	out := make([][]float32, len(feed))
	for i, f := range feed {
		if len(f) > 0 {
			out[i] = s.logits
		}
	}
	return out, nil
}

func TestRunTopP(t *testing.T) {
	tok := taggedTok()
	probs := map[string]float64{"a": 0.5, "b": 0.3, "c": 0.15, "d": 0.05}
	logits := make([]float32, len(tok.vocab))
	for v := range logits {
		logits[v] = float32(math.Inf(-1))
	}
	for s, p := range probs {
		logits[tok.ids[s]] = float32(math.Log(p))
	}
	cfg := DefaultConfig()
	cfg.TopP = 0.7 // the nucleus is {a, b}
	cfg.MaxToolCalls = 0
	e := &Engine{Policy: fixedPolicy{logits}, Tokenizer: tok, Format: format.DefaultFormat(), Config: cfg}
	trajs, err := e.Run(context.Background(), make([]envs.Task, 4), rand.New(rand.NewSource(1)))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, tr := range trajs {
		for k := tr.PromptLen; k < len(tr.Tokens); k++ {
			s := tok.vocab[tr.Tokens[k]]
			count[s]++
			if want := float32(logSoftmax64(logits, tr.Tokens[k])); tr.LogProbs[k] != want {
				t.Fatalf("%q recorded log-prob %g, want %g (temperature 1, whole vocabulary)", s, tr.LogProbs[k], want)
			}
			if want := math.Log(probs[s] / 0.8); math.Abs(float64(tr.NucleusLogProbs[k])-want) > 1e-6 {
				t.Fatalf("%q nucleus log-prob %g, want %g (renormalised over {a, b})", s, tr.NucleusLogProbs[k], want)
			}
		}
	}
	n := count["a"] + count["b"]
	if n != len(trajs)*cfg.MaxResponseTokens || count["c"]+count["d"] != 0 {
		t.Fatalf("counts %v: want only a and b", count)
	}
	frac, want := float64(count["a"])/float64(n), 0.5/0.8
	if sd := math.Sqrt(want * (1 - want) / float64(n)); math.Abs(frac-want) > 4*sd {
		t.Fatalf("a sampled %.3f of the time, want %.3f ± %.3f", frac, want, 4*sd)
	}
}

func TestRunGroupsAndPrompt(t *testing.T) {
	tasks := []envs.Task{{ID: "x", Prompt: "xx"}, {ID: "y", Prompt: "yy"}, {ID: "z", Prompt: "zz"}}
	e, p := setup(taggedTok(), turns("<answer>{prompt}</answer>"), sure, calc, func(c *Config) { c.GroupSize = 3 })
	e.Prompt = Plain(func(t envs.Task) string { return "Question: " + t.Prompt + "\n" })
	for i, tr := range run(t, e, p, tasks, 1) {
		want := "<answer>Question: " + tasks[i/3].Prompt + "</answer>"
		if tr.Response != want || tr.Stop != StopAnswer {
			t.Fatalf("trajectory %d: %q, want %q", i, tr.Response, want)
		}
	}
}

func TestRunTools(t *testing.T) {
	blocking := toolFunc(func(ctx context.Context, _ string) envs.Result {
		<-ctx.Done()
		return envs.Result{Status: envs.StatusTimeout, Output: "error: deadline", Error: ctx.Err().Error()}
	})
	ignoring := toolFunc(func(context.Context, string) envs.Result {
		time.Sleep(3 * time.Second)
		return envs.Result{Status: envs.StatusOK, Output: "late\n"}
	})
	cases := []struct {
		name   string
		tool   envs.Tool
		output string
	}{
		{"honours deadline", blocking, "error: deadline"},
		{"ignores deadline", ignoring, "error: timed out after 20ms"},
		{"disabled", envs.Disabled{}, "error: tool disabled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, p := setup(taggedTok(), turns("<code>x</code>"), sure, c.tool, func(c *Config) { c.ToolTimeout, c.MaxResultTokens = 20*time.Millisecond, 40 })
			start := time.Now()
			trajs := run(t, e, p, oneTask, 1)
			if d := time.Since(start); d > 1500*time.Millisecond {
				t.Fatalf("Run took %v with a 20ms tool timeout", d)
			}
			for _, tr := range trajs {
				if got := tr.Calls[0].Result.Output; got != c.output {
					t.Fatalf("result %q, want %q", got, c.output)
				}
				if !strings.Contains(tr.Response, "<output>"+c.output+"</output>") {
					t.Fatalf("response %q lacks the result", tr.Response)
				}
			}
		})
	}
}

func TestRunParallelSamplingMatchesSerial(t *testing.T) {
	tok := taggedTok()
	rng := rand.New(rand.NewSource(5))
	const G = 8
	logits := make([]float32, parallelWork/G) // ids past the vocabulary decode to ""
	for v := range logits {
		logits[v] = float32(rng.NormFloat64() * 4)
	}
	logits[eosID] = float32(math.Inf(-1)) // keep every row sampling
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.MaxToolCalls, cfg.MaxResponseTokens, cfg.TopP = G, 0, 12, 0.95
	e := &Engine{Policy: fixedPolicy{logits}, Tokenizer: tok, Format: format.DefaultFormat(), Config: cfg}
	sample := func(procs int) []*Trajectory {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		trajs, err := e.Run(context.Background(), oneTask, rand.New(rand.NewSource(9)))
		if err != nil {
			t.Fatal(err)
		}
		return trajs
	}
	if serial, par := sample(1), sample(4); !reflect.DeepEqual(serial, par) {
		t.Fatal("sampling on 4 goroutines differs from sampling on 1")
	}
}
