package atlass_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/atlass"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
)

// A trainer writes warm-start demonstrations of the phases from a task's
// ground truth; over an empty database the needed tool is generated.
func ExampleTeacher_Demonstrations() {
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

	truth := family.PhaseTruth{
		Subtasks: []string{"Triple 14."},
		Tools: []family.NeededTool{{
			Name: "triple", Description: "triple returns three times n.",
			Source: "// triple returns three times n.\n//\n//\ttriple(4) == 12\n//\ttriple(0) == 0\nfunc triple(n int) int { return 3 * n }",
		}},
	}
	t := &atlass.Teacher{Pipeline: &atlass.Pipeline{DB: db, Code: code}}
	demos, err := t.Demonstrations(context.Background(), envs.Task{ID: "t", Prompt: "What is three times 14?"}, truth)
	if err != nil {
		panic(err)
	}
	for _, d := range demos[:2] {
		fmt.Println(d.Phase, d.Reply)
	}
	fmt.Println(demos[2].Phase, len(demos))
	// Output:
	// analyze {"subtasks":["Triple 14."]}
	// plan {"needs_tools":true,"tools":[{"name":"triple","description":"triple returns three times n."}]}
	// generate 3
}
