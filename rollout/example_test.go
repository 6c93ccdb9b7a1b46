package rollout

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
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
	e := &Engine{Policy: policy, Tokenizer: tok, Tool: calc, Format: format.DefaultFormat(), Config: cfg}
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

// A conversation: when the policy ends its turn, the engine appends the
// next user message (masked out of the loss, like tool results) and the
// policy goes on; each call records its turn.
func ExampleEngine_Run_multiTurn() {
	tok := taggedTok()
	policy := &scriptPolicy{tok: tok, peak: 40, next: dialogue(turns("<code>fmt.Println({prompt})</code>", "<answer>{out}</answer>"))}
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.Temperature = 1, 0
	e := &Engine{Policy: policy, Tokenizer: tok, Tool: calc, Format: format.DefaultFormat(), Config: cfg, UserTurn: hashTurn}
	tasks := []envs.Task{{ID: "chat", Prompt: "2+3", Turns: []string{"4+5"}}}
	trajs, err := e.Run(context.Background(), tasks, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := trajs[0]
	fmt.Println(Text(tr, tok, true))
	fmt.Printf("turns %d; stop %s; calls in turns %d and %d\n", tr.Turns, tr.Stop, tr.Calls[0].Turn, tr.Calls[1].Turn)
	// Output:
	// 2+3
	// <code>fmt.Println(2+3)</code>⟦<output>5
	// </output>
	// ⟧<answer>5</answer>⟦
	// #4+5
	// ⟧<code>fmt.Println(4+5)</code>⟦<output>9
	// </output>
	// ⟧<answer>9</answer>
	// turns 2; stop answer; calls in turns 0 and 1
}
