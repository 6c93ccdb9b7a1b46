package rollout

import (
	"context"
	"math/rand"
	"slices"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// TestRunGroupsIndependent: with one stream per task, a group samples the
// same trajectories whatever other tasks share the call, which is what
// lets data-parallel ranks split a batch.
func TestRunGroupsIndependent(t *testing.T) {
	tok := newCharTok(true)
	rng := rand.New(rand.NewSource(1))
	logits := make([]float32, len(tok.vocab))
	for v := range logits {
		logits[v] = float32(rng.NormFloat64())
	}
	logits[eosID] = 1 // rows end at different steps
	cfg := DefaultConfig()
	cfg.MaxToolCalls, cfg.GroupSize, cfg.MaxResponseTokens = 0, 3, 40
	e := &Engine{Policy: fixedPolicy{logits}, Tokenizer: tok, Format: format.DefaultFormat(), Config: cfg}
	tasks := []envs.Task{{ID: "a", Prompt: "A"}, {ID: "b", Prompt: "B"}, {ID: "c", Prompt: "C"}}
	streams := func(seeds ...int64) []*rand.Rand {
		var rs []*rand.Rand
		for _, s := range seeds {
			rs = append(rs, rand.New(rand.NewSource(s)))
		}
		return rs
	}
	all, err := e.RunGroups(context.Background(), tasks, streams(1, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	alone, err := e.RunGroups(context.Background(), tasks[1:2], streams(2))
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range alone {
		if !slices.Equal(tr.Tokens, all[3+i].Tokens) {
			t.Errorf("group b row %d alone %v, with a and c %v", i, tr.Tokens, all[3+i].Tokens)
		}
	}
	if _, err := e.RunGroups(context.Background(), tasks, streams(1)); err == nil {
		t.Error("RunGroups with 1 stream for 3 tasks succeeded")
	}
}
