package arith_test

import (
	"fmt"
	"math/rand"

	"github.com/artist-rl/artist/envs/arith"
)

func Example_chain() {
	p := arith.Chain{Steps: 3, A: 482, B: 37, C: 64, D: 25}
	task := p.Task()
	fmt.Println(task.ID)
	fmt.Println(task.Prompt)
	fmt.Println(p.Expression(), "=", task.Answer, "via", p.Values())
	n, _ := arith.Steps(task)
	fmt.Println("steps:", n)

	train, heldout, err := arith.NewChainSplit(arith.DefaultChainConfig())
	if err != nil {
		panic(err)
	}
	batch := train.Sample(rand.New(rand.NewSource(1)), 8)
	fmt.Println(len(heldout), "held out,", len(batch), "sampled")
	// Output:
	// multistep-s3-482-37-64-25-t0-n0
	// 37 boxes hold 482 nails each. Packed 64 per bag, the rest plus 25 is?
	// 482 * 37 % 64 + 25 = 67 via [17834 42 67]
	// steps: 3
	// 150 held out, 8 sampled
}
