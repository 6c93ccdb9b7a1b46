package rollout

import (
	"context"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
)

// TestSegmentsMatchBatch: greedy, the segment path (a request per segment
// through LocalCompleter) writes the trajectories the batched engine
// writes: the same tokens, kinds, calls and stops, in both format styles.
func TestSegmentsMatchBatch(t *testing.T) {
	cases := []struct {
		name string
		art  bool
		next nextFunc
		edit func(*Config)
	}{
		{"tags: call then answer", false, turns("<think>add</think><code>fmt.Println({prompt})</code>", "<answer>{out}</answer>"), nil},
		{"tags: budget runs out", false, turns(strings.Repeat("la", 40)), budget(20)},
		{"art: two calls", true, artTurns("[code] fmt.Println({prompt})\n", "Q2: [code] fmt.Println(1+{out})\n", "so\nAns: {out}\n"), nil},
		{"art: reasoning lines", true, artTurns("add\nnow\n[code] fmt.Println({prompt})\n", "Ans: {out}\n"), nil},
		{"art: too many calls", true, artTurns("[code] fmt.Println({prompt})\n", "[code] fmt.Println({prompt})\n"), func(c *Config) { c.MaxToolCalls = 1 }},
	}
	tasks := []envs.Task{{ID: "a", Prompt: "2+3"}, {ID: "b", Prompt: "4+5"}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := taggedTok()
			if c.art {
				tok = artTok()
			}
			e, p := setup(tok, wholeText(c.next), 50, calc, func(cfg *Config) {
				cfg.Temperature = 0
				if c.edit != nil {
					c.edit(cfg)
				}
			})
			if c.art {
				e.Format = artFormat()
			}
			batch, err := e.Run(context.Background(), tasks, nil)
			if err != nil {
				t.Fatal(err)
			}
			seg := *e
			seg.Completer = LocalCompleter{Policy: p, Tokenizer: tok}
			got, err := seg.Run(context.Background(), tasks, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range batch {
				g := got[i]
				if !slices.Equal(g.Tokens, want.Tokens) || !slices.Equal(g.Kinds, want.Kinds) || g.Stop != want.Stop || !reflect.DeepEqual(g.Calls, want.Calls) {
					t.Errorf("trajectory %d:\n segments %q %s %+v\n batch    %q %s %+v", i, g.Response, g.Stop, g.Calls, want.Response, want.Stop, want.Calls)
				}
			}
		})
	}
}

// countingCompleter counts requests and the seeds they carry.
type countingCompleter struct {
	LocalCompleter
	seeds chan int64
}

func (c countingCompleter) Complete(ctx context.Context, req SegmentRequest) (Completion, error) {
	c.seeds <- req.Seed
	return c.LocalCompleter.Complete(ctx, req)
}

// TestSegmentsReproduce: sampled through a Completer, the trajectories
// depend on the seed alone: one at a time or all at once, the same; each
// request carries a seed of its own; another seed samples otherwise.
func TestSegmentsReproduce(t *testing.T) {
	tok := taggedTok()
	next := wholeText(turns("<think>add</think><code>fmt.Println({prompt})</code>", "<answer>{out}</answer>"))
	e, p := setup(tok, next, 2, calc, func(cfg *Config) { cfg.GroupSize = 4; cfg.MaxResponseTokens = 40 })
	tasks := []envs.Task{{ID: "a", Prompt: "2+3"}, {ID: "b", Prompt: "4+5"}}
	runWith := func(parallel int, seed int64) ([]*Trajectory, []int64) {
		c := countingCompleter{LocalCompleter{Policy: p, Tokenizer: tok}, make(chan int64, 1000)}
		seg := *e
		seg.Completer, seg.Parallel = c, parallel
		trajs, err := seg.Run(context.Background(), tasks, rand.New(rand.NewSource(seed)))
		if err != nil {
			t.Fatal(err)
		}
		close(c.seeds)
		var seeds []int64
		for s := range c.seeds {
			seeds = append(seeds, s)
		}
		return trajs, seeds
	}
	a, seedsA := runWith(1, 7)
	b, _ := runWith(8, 7)
	c, _ := runWith(8, 8)
	differ := false
	for i := range a {
		if !slices.Equal(a[i].Tokens, b[i].Tokens) || !slices.Equal(a[i].LogProbs, b[i].LogProbs) {
			t.Errorf("trajectory %d differs between 1 and 8 in flight:\n %q\n %q", i, a[i].Response, b[i].Response)
		}
		differ = differ || !slices.Equal(a[i].Tokens, c[i].Tokens)
	}
	if !differ {
		t.Error("seeds 7 and 8 sampled the same trajectories")
	}
	distinct := map[int64]bool{}
	for _, s := range seedsA {
		distinct[s] = true
	}
	if len(seedsA) < len(a) || len(distinct) != len(seedsA) {
		t.Errorf("%d requests for %d trajectories carried %d distinct seeds", len(seedsA), len(a), len(distinct))
	}
}
