package trainer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/chat"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// bfclData holds hand-made entries in the BFCL v3 format (testdata at the
// module root): 6 base entries, enough for the split below.
var bfclData = filepath.Join("..", "testdata", "bfcl_v3")

// tinyFCConfig is configs/tiny-fc-bfcl.yaml shrunk for a test: a small
// model, a handful of entries, a few steps, on the fixture entries.
func tinyFCConfig(t *testing.T, dir string, sets ...string) Config {
	t.Helper()
	return tinyFCConfigOn(t, bfclData, dir, sets...)
}

// tinyFCConfigOn is tinyFCConfig on the BFCL v3 files under bfclDir.
func tinyFCConfigOn(t *testing.T, bfclDir, dir string, sets ...string) Config {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "configs", "tiny-fc-bfcl.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sets = append([]string{
		"run_dir=" + dir, "task.bfcl.data=" + bfclDir, "task.bfcl.train=4", "task.bfcl.heldout=2",
		"tokenizer_merges=300", "model.hidden_size=16", "model.intermediate_size=32", "model.num_hidden_layers=1",
		"model.num_attention_heads=2", "model.num_key_value_heads=1",
		"warmstart.steps=2", "warmstart.batch_size=2", "grpo.steps=1", "grpo.batch_size=2", "rollout.group_size=2",
		"rollout.max_response_tokens=48", "rollout.max_tool_calls=2", "rollout.max_result_tokens=32", "eval.every=0",
	}, sets...)
	cfg, err := Parse(data, "tiny-fc-bfcl.yaml", sets)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestFCDemonstrations: the library replays each training entry's ground
// truth: one demonstration per entry, every turn's calls in one tool block
// whose result is what the entry's instances really return, later user
// turns and results masked out of the loss. It runs on the fixture, and on
// the benchmark when it is present.
func TestFCDemonstrations(t *testing.T) {
	for _, tc := range []struct {
		name string
		data func(t *testing.T) string
	}{
		{"fixture", func(*testing.T) string { return bfclData }},
		{"benchmark", func(t *testing.T) string { return datadir.Require(t, "bfcl_v3") }},
	} {
		t.Run(tc.name, func(t *testing.T) { testFCDemonstrations(t, tc.data(t)) })
	}
}

func testFCDemonstrations(t *testing.T, data string) {
	cfg := tinyFCConfigOn(t, data, t.TempDir())
	r, err := Setup(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	demos, err := r.demos(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(demos) != cfg.Task.Section("bfcl").(*bfcl.Config).Train {
		t.Fatalf("%d demonstrations for %d training entries", len(demos), cfg.Task.Section("bfcl").(*bfcl.Config).Train)
	}
	d, err := bfcl.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.Format
	for i, demo := range demos {
		e := r.Tasks.(*bfcl.Set).TrainEntries()[i]
		replay, err := bfcl.Replay(d, e)
		if err != nil {
			t.Fatal(err)
		}
		results := strings.Join(replayResults(t, replay), "\n")
		var got []string
		users := 0
		for _, s := range demo.Segments {
			switch {
			case strings.HasPrefix(s.Text, format.Open(f.Output)):
				got = append(got, strings.TrimSuffix(strings.TrimPrefix(s.Text, format.Open(f.Output)), format.Close(f.Output)+"\n"))
				if !s.Tool {
					t.Errorf("%s: a result is not masked", e.ID)
				}
			case s.Tool:
				users++
			}
		}
		if strings.Join(got, "\n") != results {
			t.Errorf("%s: demonstration results\n%q\nwant the replay's\n%q", e.ID, strings.Join(got, "\n"), results)
		}
		if users != len(e.GroundTruth)-1 {
			t.Errorf("%s: %d masked user turns, want %d", e.ID, users, len(e.GroundTruth)-1)
		}
		seq, mask, err := r.encodeDemo(context.Background(), demo)
		if err != nil {
			t.Fatal(err)
		}
		if len(seq) != len(mask) || strings.Count(r.Tok.Decode(seq), eosToken) != len(e.GroundTruth) {
			t.Errorf("%s: want one end-of-sequence per turn in %q", e.ID, r.Tok.Decode(seq))
		}
		if i == 0 && !strings.Contains(demo.Response(), format.Open(f.Code)+"[") {
			t.Errorf("calls are not written as a list: %q", demo.Response())
		}
	}
}

// replayResults flattens the execution results of a Replay record.
func replayResults(t *testing.T, rec *bfcl.Dict) []string {
	t.Helper()
	v, ok := rec.Get("turns")
	if !ok {
		t.Fatalf("replay record has no turns: keys %v", rec.Keys())
	}
	var out []string
	for _, turn := range v.([]any) {
		rs, _ := turn.(*bfcl.Dict).Get("results")
		for _, r := range rs.([]any) {
			out = append(out, r.(string))
		}
	}
	return out
}

// TestFCRunLogsRewards trains the function-calling config end to end for
// a step and requires the three function-calling rewards in the step's
// metrics and in the held-out evaluation.
func TestFCRunLogsRewards(t *testing.T) {
	dir := t.TempDir()
	sum, err := Train(context.Background(), tinyFCConfig(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadMetrics(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	step := recs[len(recs)-1]
	for _, k := range []string{"reward/fc_state/mean", "reward/fc_function/mean", "reward/fc_format/mean", "eval/bfcl/pass@1", "eval/bfcl/reward/fc_state"} {
		v, ok := step[k]
		if !ok || v < 0 {
			t.Errorf("metric %s = %v, %v; want it logged", k, v, ok)
		}
	}
	if s := step["reward/fc_state/mean"]; s <= 0 || s > 0.5 {
		t.Errorf("fc_state %v: want in (0, 0.5] (most of the state is right before any call)", s)
	}
	if sum.Final.N != 2 {
		t.Errorf("final eval scored %d rollouts, want one per held-out entry (2)", sum.Final.N)
	}
}

// TestRenderTurnChat: a conversation rendered turn by turn as the
// demonstrations append it, the policy's turns ended by <|im_end|>, is
// the chat template's rendering of the whole conversation.
func TestRenderTurnChat(t *testing.T) {
	c, err := OpenChat(PromptConfig{Template: "chat", System: "sys"}, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{Chat: c}
	const eos = "<|im_end|>"
	turn, turnErr := r.renderTurn(eos)
	prompt, err := r.renderPrompt(context.Background(), envs.Task{Prompt: "q1"})
	if err != nil {
		t.Fatal(err)
	}
	got := prompt + "a1" + eos + turn("q2") + "a2" + eos + turn("q3")
	if err := turnErr(); err != nil {
		t.Fatal(err)
	}
	want, err := c.Template.Render([]chat.Message{
		{Role: "system", Content: "sys"}, {Role: "user", Content: "q1"}, {Role: "assistant", Content: "a1"},
		{Role: "user", Content: "q2"}, {Role: "assistant", Content: "a2"}, {Role: "user", Content: "q3"},
	}, chat.Options{AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("rendered turn by turn:\n%q\nchat template:\n%q", got, want)
	}
	if plain, _ := (&Run{}).renderTurn(eos); plain("q2") != rollout.UserTurnText("q2") {
		t.Errorf("plain turn %q", plain("q2"))
	}
}

// TestSetupChecksContext: a model too short for the prompts, user turns
// and budgets fails at Setup with an error that names the keys to change,
// not by overflowing mid-run.
func TestSetupChecksContext(t *testing.T) {
	cfg := tinyFCConfig(t, t.TempDir(), "model.max_position_embeddings=512")
	_, err := Setup(context.Background(), cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "max_position_embeddings 512") || !strings.Contains(err.Error(), "rollout.max_response_tokens") {
		t.Fatalf("Setup error %v; want one naming the context and the budgets", err)
	}
}
