package bfcl_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/bfcl"
)

// A missing-function task: sort is withheld until turn 3, whose text
// documents it; the tool refuses it until the engine starts that turn.
func ExampleTasks() {
	d, err := bfcl.Load("../../testdata/bfcl_v3")
	if err != nil {
		fmt.Println(err)
		return
	}
	entries, err := d.Entries("miss_func")
	if err != nil {
		fmt.Println(err)
		return
	}
	entries = entries[:1]
	tasks, err := bfcl.Tasks(d, entries, bfcl.TaskOptions{Docs: bfcl.DocsSignatures})
	if err != nil {
		fmt.Println(err)
		return
	}
	task := tasks[0]
	lines := strings.Split(task.Prompt, "\n")
	fmt.Println(task.ID, len(task.Turns), "later turns")
	fmt.Println(lines[0])
	fmt.Println(lines[1])
	fmt.Println(lines[len(lines)-1])
	fmt.Println(task.Turns[2])

	s := bfcl.NewTool(d, entries).OpenSession(task).(*bfcl.Session)
	defer s.Close()
	ctx := context.Background()
	fmt.Println(s.Call(ctx, "[cd(folder='letters'), sort(file_name='invite.txt')]").Output)
	var ts envs.TurnSession = s
	ts.StartTurn(3)
	r := s.Call(ctx, `{"name": "sort", "arguments": {"file_name": "invite.txt"}}`)
	fmt.Println(r.Status, r.Output)
	fmt.Println(s.Calls())
	fmt.Println(bfcl.StepCalls(`[{"name": "cd", "arguments": {"folder": "sent"}}, {"name": "ls", "arguments": {}}]`))
	// Output:
	// multi_turn_miss_func_0 4 later turns
	// Functions:
	// authenticate_twitter(username: str, password: str) - Log in with a username and password.
	// Go into letters, make a folder called 'sent' and copy invite.txt into it.
	// New functions:
	// sort(file_name: str) - Sort the lines of a file.
	//
	// I have updated some more functions you can choose from. What about now?
	// {"current_working_directory": "letters"}
	// Error during execution: function 'sort' is not available at this point
	// ok {"sorted_content": "all welcome\nbring the slides\nsee you at noon"}
	// [cd(folder='letters') sort(file_name='invite.txt') sort(file_name='invite.txt')]
	// [cd(folder='sent') ls()]
}
