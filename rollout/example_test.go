package rollout

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/artist-rl/artist/envs"
)

// The policy here is a scripted fake (see fake_test.go) that writes a
// code block, then would invent its result; the engine stops it at the
// closing code tag and writes the real result, which the policy reads.
func ExampleEngine_Run() {
	tok := taggedTok()
	policy := &scriptPolicy{tok: tok, peak: 40, next: turns(
		"<think>add</think><code>fmt.Println(2+3)</code><output>999</output>",
		"<answer>{out}</answer>",
	)}
	cfg := DefaultConfig()
	cfg.GroupSize = 2
	e := &Engine{Policy: policy, Tokenizer: tok, Tool: calc, Format: DefaultFormat(), Config: cfg}
	tasks := []envs.Task{{ID: "sum", Prompt: "What is 2+3?", Answer: "5"}}
	trajs, err := e.Run(context.Background(), tasks, rand.New(rand.NewSource(1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := trajs[0]
	fmt.Println(Text(tr, tok, true))
	fmt.Printf("%d trajectories; stop %s; calls %d (%s); %d model tokens of %d\n",
		len(trajs), tr.Stop, len(tr.Calls), tr.Calls[0].Result.Status, tr.ModelTokens(), len(tr.Tokens))
	// Output:
	// What is 2+3?
	// <think>add</think><code>fmt.Println(2+3)</code>⟦<output>5
	// </output>
	// ⟧<answer>5</answer>
	// 2 trajectories; stop answer; calls 1 (ok); 26 model tokens of 44
}
