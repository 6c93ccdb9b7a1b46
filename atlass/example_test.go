package atlass_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
	"github.com/artist-rl/artist/rollout"
)

// replies is a Chat that answers with fixed replies in order, as a
// policy inside a rollout would answer through an adapter.
type replies []string

func (r *replies) Reply(context.Context, []openai.ChatMessage) (string, error) {
	next := (*r)[0]
	*r = (*r)[1:]
	return next, nil
}

// oneCall is a Solver that makes one call and answers with its output, as
// a rollout engine over the policy would solve.
type oneCall string

func (c oneCall) Prompt(task envs.Task, _ []toollib.Tool) string { return task.Prompt }

func (c oneCall) Solve(ctx context.Context, task envs.Task, _ []toollib.Tool, tool envs.Tool) (*rollout.Trajectory, error) {
	r := tool.Call(ctx, string(c))
	return &rollout.Trajectory{Task: task, Response: "<answer>" + strings.TrimSpace(r.Output) + "</answer>"}, nil
}

func ExamplePipeline_Run() {
	code, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		panic(err)
	}
	defer code.Close()
	dir, err := os.MkdirTemp("", "atlass")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := toollib.OpenDB(filepath.Join(dir, "tools.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	gcd, err := toollib.ParseTool("// gcd returns the greatest common divisor of a and b.\n//\n//\tgcd(12, 18) == 6\nfunc gcd(a, b int) int {\n\tfor b != 0 {\n\t\ta, b = b, a%b\n\t}\n\treturn a\n}")
	if err != nil {
		panic(err)
	}
	if _, err := db.Add(context.Background(), code, gcd, toollib.Provenance{Source: "human"}, toollib.Approved); err != nil {
		panic(err)
	}

	chat := &replies{
		`{"subtasks": ["Find the greatest common divisor of 84 and 36."]}`,
		`{"needs_tools": true, "tools": [{"name": "greatestCommonDivisor", "description": "the greatest common divisor of two ints"}]}`,
		`{"matches": [{"needed": "greatestCommonDivisor", "existing": 1, "why": "gcd does this under a shorter name"}]}`,
	}
	p := &atlass.Pipeline{Chat: chat, Solver: oneCall("fmt.Println(gcd(84, 36))"), DB: db, Code: code}
	tr, err := p.Run(context.Background(), envs.Task{ID: "gcd", Prompt: "What is the greatest common divisor of 84 and 36?"})
	if err != nil {
		panic(err)
	}
	fmt.Println(tr.Status, tr.Answer)
	for _, t := range tr.Tools {
		fmt.Println(t.Needed.Name, "->", t.Name, t.How, t.State)
	}
	// Output:
	// solved 12
	// greatestCommonDivisor -> gcd selected approved
}
