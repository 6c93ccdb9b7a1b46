package rollout

import (
	"context"
	"fmt"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// In the art style the policy writes ART's program lines: the engine
// stops at the newline that ends a "[code] …" line, writes the result as
// "#1: …" (masked out of the loss) and ends the rollout at the newline of
// the "Ans: …" line.
func ExampleEngine_Run_art() {
	f := format.DefaultFormat()
	f.Style = format.StyleART
	tok := newCharTok(true, f.Tags()...)
	policy := &scriptPolicy{tok: tok, peak: 40, next: artTurns(
		"add\nQ1: [code] fmt.Println(2+3)\n#1: 999\n",
		"Ans: {out}\n",
	)}
	cfg := DefaultConfig()
	cfg.GroupSize, cfg.Temperature = 1, 0
	e := &Engine{Policy: policy, Tokenizer: tok, Tool: calc, Format: f, Config: cfg}
	trajs, err := e.Run(context.Background(), []envs.Task{{ID: "sum", Prompt: "What is 2+3?"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr := trajs[0]
	fmt.Print(Text(tr, tok, true))
	fmt.Printf("stop %s; call %q -> %s\n", tr.Stop, tr.Calls[0].Input, tr.Calls[0].Result.Status)
	// Output:
	// What is 2+3?
	// add
	// Q1: [code] fmt.Println(2+3)
	// ⟦#1: 5
	// ⟧Ans: 5
	// stop answer; call "fmt.Println(2+3)" -> ok
}

// A demonstration written with Program in the art style, and read back
// with Pieces.
func ExampleFormat_Pieces() {
	f := format.DefaultFormat()
	f.Style = format.StyleART
	demo := Demo{Segments: NewProgram(f).Think("6 * 7").Call("fmt.Println(6 * 7)", "42\n").Answer("42").Segments()}
	fmt.Print(demo.Response())
	for _, p := range f.Pieces(demo.Response()) {
		fmt.Printf("kind %d n %d %q\n", p.Kind, p.N, p.Text)
	}
	// Output:
	// 6 * 7
	// [code] fmt.Println(6 * 7)
	// #1: 42
	// Ans: 42
	// kind 0 n 0 "6 * 7"
	// kind 1 n 0 "fmt.Println(6 * 7)"
	// kind 2 n 1 "42"
	// kind 3 n 0 "42"
}
