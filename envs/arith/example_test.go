package arith_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/arith"
	"github.com/artist-rl/artist/envs/sandbox"
)

func Example() {
	p := arith.Problem{Op: arith.Mul, A: 4821, B: 37, Template: 0, Noun: 0}
	task := p.Task()
	code, _ := arith.Reference(task)
	fmt.Println(task.ID)
	fmt.Println(task.Prompt)
	fmt.Println(code, "=", task.Answer)

	train, heldout, err := arith.NewSplit(arith.DefaultConfig())
	if err != nil {
		panic(err)
	}
	batch := train.Sample(rand.New(rand.NewSource(1)), 8)
	fmt.Println(len(heldout), "held out,", len(batch), "sampled")
	// Output:
	// arith-mul-4821-37-t0-n0
	// 37 boxes hold 4821 nails each. How many nails?
	// fmt.Println(4821 * 37) = 178377
	// 200 held out, 8 sampled
}

// TestReferenceRunsInSandbox runs reference code through the code tool and
// checks that it prints the gold answer.
func TestReferenceRunsInSandbox(t *testing.T) {
	tool, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	train, heldout, err := arith.NewSplit(arith.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	tasks := append(heldout[:30:30], train.Sample(rand.New(rand.NewSource(1)), 30)...)
	for _, task := range tasks {
		code, ok := arith.Reference(task)
		got := tool.Call(context.Background(), code)
		if want := (envs.Result{Status: envs.StatusOK, Output: task.Answer + "\n"}); !ok || got != want {
			t.Errorf("%s: Reference = %q, %v; sandbox gave %+v, want %+v", task.ID, code, ok, got, want)
		}
	}
}
