package rollout

import (
	"reflect"
	"testing"

	"github.com/artist-rl/artist/envs"
)

// kindRuns decodes each run of tokens of one kind: "kind:text".
func kindRuns(t *Trajectory, tok Tokenizer) []string {
	var out []string
	for i := 0; i < len(t.Tokens); {
		j := i + 1
		for j < len(t.Tokens) && t.Kinds[j] == t.Kinds[i] {
			j++
		}
		out = append(out, t.Kinds[i].String()+":"+tok.Decode(t.Tokens[i:j]))
		i = j
	}
	return out
}

// TestRunKinds: the engine labels every token with who wrote it: the
// prompt, the policy's text, its tool call (from the opening code tag to
// the closing one), the engine's result block and later user turns; the
// mask derives from the kinds.
func TestRunKinds(t *testing.T) {
	task := []envs.Task{{ID: "c", Prompt: "a", Turns: []string{"b"}}}
	tool := &turnTool{}
	e, p := setup(taggedTok(), dialogue(turns("hm<code>{prompt}</code>", "<answer>{out}</answer>")), sure, tool, nil)
	e.UserTurn = hashTurn
	e.Config.GroupSize, e.Config.Temperature, e.Config.MaxToolCalls = 1, 0, 8
	tr := runTurns(t, e, p, task)[0]
	want := []string{
		"prompt:a\n", "model:hm", "tool_call:<code>a</code>", "tool_result:<output>a@0</output>\n",
		"model:<answer>a@0</answer>", "user:\n#b\n",
		"model:hm", "tool_call:<code>b</code>", "tool_result:<output>b@1</output>\n", "model:<answer>b@1</answer>",
	}
	if got := kindRuns(tr, e.Tokenizer); !reflect.DeepEqual(got, want) {
		t.Fatalf("kinds\n got %q\nwant %q", got, want)
	}
	for i, k := range tr.Kinds {
		if tr.Mask[i] != k.Mask() {
			t.Fatalf("token %d: %s with mask %d", i, k, tr.Mask[i])
		}
	}
}

// TestTrajectoryAppendKinds: Append refuses an invalid kind and log-probs
// on tokens the policy did not sample; Validate refuses a mask that does
// not follow the kinds.
func TestTrajectoryAppendKinds(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(*Trajectory)
	}{
		{"kind 0", func(tr *Trajectory) { tr.Append([]int{1}, 0, nil) }},
		{"log-probs on a tool result", func(tr *Trajectory) { tr.Append([]int{1}, KindToolResult, []float32{-1}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("Append did not panic")
				}
			}()
			c.f(&Trajectory{})
		})
	}
	tr := &Trajectory{PromptLen: 1}
	tr.Append([]int{1}, KindPrompt, nil)
	tr.Append([]int{2}, KindModel, []float32{-1})
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	tr.Mask[1] = 0
	if err := tr.Validate(); err == nil {
		t.Fatal("Validate accepted a model token with mask 0")
	}
}
