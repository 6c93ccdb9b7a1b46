package reward_test

import (
	"fmt"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

func ExampleComposite_Score() {
	f := format.DefaultFormat()
	comp, err := reward.NewComposite(reward.DefaultWeights(), reward.Env{Format: f})
	if err != nil {
		panic(err)
	}
	t := &rollout.Trajectory{
		Response: "<think>Let the tool multiply.</think>" +
			"<code>fmt.Println(6 * 7)</code><output>42\n</output>" +
			`<answer>\boxed{42}</answer>`,
		Calls: []rollout.Call{{Input: "fmt.Println(6 * 7)", Result: envs.Result{Status: envs.StatusOK, Output: "42\n"}}},
	}
	total, parts := comp.Score(t, envs.Task{Prompt: "What is 6*7?", Answer: "42"})
	fmt.Println("total", total)
	for _, c := range comp {
		fmt.Println(c.Name, parts[c.Name])
	}
	// Output:
	// total 4
	// answer 2
	// format_relaxed 0.5
	// format_strict 0.5
	// tool_success 1
}
