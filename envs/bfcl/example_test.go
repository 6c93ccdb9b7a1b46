package bfcl_test

import (
	"fmt"

	"github.com/artist-rl/artist/envs/bfcl"
)

func Example() {
	d, err := bfcl.Load("../../testdata/bfcl_v3")
	if err != nil {
		fmt.Println(err)
		return
	}
	config, _ := bfcl.DecodeJSON([]byte(`{"GorillaFileSystem": {"root": {"workspace": {"type": "directory",
		"contents": {"document": {"type": "directory", "contents": {}}}}}}}`))
	env, err := bfcl.NewEnv(d, []string{"GorillaFileSystem", "MathAPI"}, config.(*bfcl.Dict), false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, call := range []string{
		"cd(folder='document')",
		"touch(file_name='notes.txt')",
		`{"name": "pwd", "arguments": {}}`,
		"ls()",
		"mean(numbers=[1, 2, 4])",
		"add(a=1, b=2)",
		"logarithm(value=36, base=6, precision=4)",
		"cd('nowhere')",
		"mkdir()",
		"rm_rf(path='/')",
	} {
		calls, err := bfcl.ParseCalls(call)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(env.ExecuteCall(calls[0]))
	}
	// Output:
	// {"current_working_directory": "document"}
	// None
	// {"current_working_directory": "/workspace/document"}
	// {"current_directory_content": ["notes.txt"]}
	// {"result": 2.3333333333333335}
	// {"result": 3}
	// {'result': mpf('2.0')}
	// {"error": "cd: nowhere: No such directory. You cannot use path to change directory."}
	// Error during execution: GorillaFileSystem.mkdir() missing 1 required positional argument: 'dir_name'
	// Error during execution: name 'rm_rf' is not defined
}
