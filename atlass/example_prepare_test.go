package atlass_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/openai"
)

func ExampleRenderPlain() {
	text, err := atlass.RenderPlain([]openai.ChatMessage{
		{Role: "system", Content: openai.Text("You are the task analyzer.")},
		{Role: "user", Content: openai.Text("Task: add 2 and 3.")},
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", text)
	// Output:
	// "system: You are the task analyzer.\nuser: Task: add 2 and 3.\nassistant: "
}

// A trainer runs the phases with Prepare, then solves a group of
// trajectories itself with the approved tools defined by WithTools.
func ExamplePipeline_Prepare() {
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

	chat := &replies{
		`{"subtasks": ["Triple 14."]}`,
		`{"needs_tools": true, "tools": [{"name": "triple", "description": "three times an int"}]}`,
		"```go\n// triple returns three times n.\n//\n//\ttriple(4) == 12\nfunc triple(n int) int { return 3 * n }\n```",
	}
	p := &atlass.Pipeline{Chat: chat, DB: db, Code: code, AutoApprove: true}
	tr, err := p.Prepare(context.Background(), envs.Task{ID: "t", Prompt: "What is three times 14?"})
	if err != nil {
		panic(err)
	}
	_, tools, err := p.ApprovedTools(context.Background(), tr)
	if err != nil {
		panic(err)
	}
	for _, t := range tr.Tools {
		fmt.Println(t.Name, t.How, t.State)
	}
	res := atlass.WithTools(code, tools).Call(context.Background(), "fmt.Println(triple(14))")
	fmt.Print(res.Output)
	// Output:
	// triple generated approved
	// 42
}
