package library_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs/library"
	"github.com/artist-rl/artist/rollout/format"
)

func Example() {
	lib, err := library.Parse(strings.NewReader(`{"id":"mul","family":"arith","description":"multiplication","input":"6 crates hold 7 jars each. How many jars?","steps":[{"thought":"6 * 7","tool":"sandbox","call":"fmt.Println(6 * 7)","result":"42\n"}],"answer":"42"}
{"id":"rev","family":"strings","description":"reverse a word","input":"Reverse the word stop.","steps":[],"answer":"pots"}`), "example.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	ix := library.NewIndex(lib)
	ms, err := ix.Select(context.Background(), "arith", "9 crates hold 5 jars each. How many jars?", 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range ms {
		fmt.Printf("%s transfer=%v similar=%v\n", m.Demo.ID, m.Transfer, m.Score > 0)
	}
	d, _ := lib.Find("mul")
	fmt.Println(library.Render(d, format.DefaultFormat(), library.SyntaxTags))
	fmt.Println(library.Render(d, format.DefaultFormat(), library.SyntaxART))
	// Output:
	// mul transfer=false similar=true
	// rev transfer=true similar=false
	// 6 crates hold 7 jars each. How many jars?
	// <think>6 * 7</think><code>fmt.Println(6 * 7)</code><output>42
	// </output>
	// <answer>42</answer>
	// Q: 6 crates hold 7 jars each. How many jars?
	// 6 * 7
	// [sandbox] fmt.Println(6 * 7)
	// #1: 42
	// Ans: 42
}
