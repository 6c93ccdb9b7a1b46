package runlog_test

import (
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/runlog"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// chars is a tokenizer with one token per byte.
type chars struct{}

func (chars) Encode(s string) []int {
	ids := make([]int, len(s))
	for i := range len(s) {
		ids[i] = int(s[i])
	}
	return ids
}

func (chars) Decode(ids []int) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteByte(byte(id))
	}
	return b.String()
}

// A rollout as the engine records it: the prompt, what the policy wrote,
// the engine's tool result (mask 0), the policy's answer.
func ExampleSegments() {
	tok := chars{}
	t := &rollout.Trajectory{Task: envs.Task{ID: "t", Answer: "6"}}
	prompt := tok.Encode("2*3?\n")
	t.PromptLen = len(prompt)
	t.Append(prompt, rollout.KindPrompt, nil)
	t.Append(tok.Encode("<code>fmt.Println(2*3)</code>"), rollout.KindToolCall, nil)
	t.Append(tok.Encode(format.ResultBlock(format.DefaultFormat(), "6\n")), rollout.KindToolResult, nil)
	t.Append(tok.Encode("<answer>6</answer>"), rollout.KindModel, nil)
	t.Calls = []rollout.Call{{Input: "fmt.Println(2*3)", Result: envs.Result{Output: "6\n", Status: envs.StatusOK}}}
	for _, s := range runlog.Segments(t, tok, format.DefaultFormat()) {
		status := s.Status
		if status == "" {
			status = "-"
		}
		fmt.Printf("%-11s %2d tokens masked=%-5v status=%-2s %q\n", s.Kind, s.Tokens, s.Masked, status, s.Text)
	}
	// Output:
	// prompt       5 tokens masked=true  status=-  "2*3?\n"
	// tool_call   29 tokens masked=false status=-  "<code>fmt.Println(2*3)</code>"
	// tool_result 20 tokens masked=true  status=ok "<output>6\n</output>\n"
	// model       18 tokens masked=false status=-  "<answer>6</answer>"
}
