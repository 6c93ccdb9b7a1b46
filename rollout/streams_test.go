package rollout

import (
	"context"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// TestStreamsIndependent: each trajectory samples from the stream of its
// (group, sample), so a group samples the same trajectories whatever other
// tasks share the call, which is what lets data-parallel ranks split a
// batch, and another seed, phase or step samples others.
func TestStreamsIndependent(t *testing.T) {
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
	s := Streams{Seed: 7, Phase: "grpo", Step: 3}
	run := func(tasks []envs.Task, s Streams) []*Trajectory {
		t.Helper()
		trajs, err := e.RunStreams(context.Background(), tasks, s)
		if err != nil {
			t.Fatal(err)
		}
		return trajs
	}
	all := run(tasks, s)
	one := s
	one.First = 1
	for i, tr := range run(tasks[1:2], one) {
		if !slices.Equal(tr.Tokens, all[3+i].Tokens) {
			t.Errorf("group b row %d alone %v, with a and c %v", i, tr.Tokens, all[3+i].Tokens)
		}
	}
	for _, other := range []Streams{{Seed: 8, Phase: "grpo", Step: 3}, {Seed: 7, Phase: "eval", Step: 3}, {Seed: 7, Phase: "grpo", Step: 4}} {
		same := 0
		for i, tr := range run(tasks, other) {
			if slices.Equal(tr.Tokens, all[i].Tokens) {
				same++
			}
		}
		if same == len(all) {
			t.Errorf("streams %+v sampled what %+v did", other, s)
		}
	}
}

// TestStreamsSegmentsMatchBatched: sampling, the batched path and the
// Completer path (what rollout servers do, request by request) write the
// same trajectories from the same Streams, tool calls and the segments
// after them included.
func TestStreamsSegmentsMatchBatched(t *testing.T) {
	tok := taggedTok()
	next := turns("<think>add</think><code>fmt.Println({prompt})</code>", "<answer>{out}</answer>")
	e, p := setup(tok, wholeText(next), 8, calc, func(cfg *Config) { cfg.GroupSize, cfg.MaxResponseTokens = 8, 60 })
	p.rowless = true // a sequence's logits do not depend on its row in the batch
	tasks := []envs.Task{{ID: "a", Prompt: "2+3"}, {ID: "b", Prompt: "4+5"}}
	s := Streams{Seed: 11, Phase: "grpo", Step: 1, First: 5}
	want, err := e.RunStreams(context.Background(), tasks, s)
	if err != nil {
		t.Fatal(err)
	}
	seg := *e
	seg.Completer = LocalCompleter{Policy: p, Tokenizer: tok}
	got, err := seg.RunStreams(context.Background(), tasks, s)
	if err != nil {
		t.Fatal(err)
	}
	calls, differ := 0, 0
	for i := range want {
		if !slices.Equal(got[i].Tokens, want[i].Tokens) || !slices.Equal(got[i].LogProbs, want[i].LogProbs) {
			t.Errorf("trajectory %d:\n segments %q\n batched  %q", i, got[i].Response, want[i].Response)
		}
		calls += len(want[i].Calls)
		if i > 0 && !slices.Equal(want[i].Tokens, want[i-1].Tokens) {
			differ++
		}
	}
	if calls == 0 || differ == 0 {
		t.Fatalf("%d calls, %d neighbours that differ: the test samples nothing worth comparing", calls, differ)
	}
}

// TestContinuousMatchesBatched: on a Batcher (continuous batching, a row
// per trajectory kept across its tool calls) the engine samples what the
// lockstep engine samples from the same Streams, feeding the policy the
// same tokens (nothing is fed twice), with rows sharing steps.
func TestContinuousMatchesBatched(t *testing.T) {
	tok := taggedTok()
	next := turns("<think>add</think><code>fmt.Println({prompt})</code>", "<answer>{out}</answer>")
	e, p := setup(tok, wholeText(next), 8, calc, func(cfg *Config) { cfg.GroupSize, cfg.MaxResponseTokens = 8, 60 })
	p.rowless = true
	tasks := []envs.Task{{ID: "a", Prompt: "2+3"}, {ID: "b", Prompt: "4+5"}}
	s := Streams{Seed: 3, Phase: "grpo", Step: 2}
	want, err := e.RunStreams(context.Background(), tasks, s)
	if err != nil {
		t.Fatal(err)
	}
	lockstepFed := p.fed()
	p.sessions = nil
	b := NewBatcher(func() Rows { return p.NewSession(0, 0).(*scriptSession) }, 0, len(tok.vocab))
	cont := *e
	cont.Completer = LocalRows{Policy: b.Policy(context.Background()), Tokenizer: tok}
	got, err := cont.RunStreams(context.Background(), tasks, s)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for i := range want {
		if !slices.Equal(got[i].Tokens, want[i].Tokens) || !slices.Equal(got[i].LogProbs, want[i].LogProbs) || got[i].Stop != want[i].Stop {
			t.Errorf("trajectory %d:\n continuous %q %s\n lockstep   %q %s", i, got[i].Response, got[i].Stop, want[i].Response, want[i].Stop)
		}
		calls += len(want[i].Calls)
	}
	if calls == 0 {
		t.Fatal("no tool calls: the test compares nothing worth comparing")
	}
	if fed := p.fed(); fed != lockstepFed {
		t.Errorf("continuous batching fed %d tokens, lockstep %d", fed, lockstepFed)
	}
	if st := b.Stats(); st.Widest < 2 {
		t.Errorf("batcher %+v: no step decoded two rows", st)
	}
	for deadline := time.Now().Add(5 * time.Second); !b.Idle(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("rows left in the batcher after the run")
		}
	}
}
