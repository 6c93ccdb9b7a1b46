package library_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs/library"
)

// letters embeds a text as how often it holds each of a few letters.
type letters string

func (l letters) Embed(_ context.Context, text string) ([]float32, error) {
	v := make([]float32, len(l))
	for i, r := range string(l) {
		v[i] = float32(strings.Count(text, string(r)))
	}
	return v, nil
}

func ExampleNewEmbedIndex() {
	lib, err := library.Parse(strings.NewReader(`{"id":"zz","family":"arith","description":"zzz","input":"zz","steps":[],"answer":"1"}
{"id":"qq","family":"arith","description":"qqq","input":"qq","steps":[],"answer":"2"}
{"id":"qz","family":"strings","description":"qz","input":"qqz","steps":[],"answer":"3"}`), "example.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	ix := library.NewEmbedIndex(lib, letters("qz"))
	ms, err := ix.Select(context.Background(), "arith", "q", 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range ms {
		fmt.Printf("%s transfer=%v cosine=%.3f\n", m.Demo.ID, m.Transfer, m.Score)
	}
	// Output:
	// qq transfer=false cosine=1.000
	// qz transfer=true cosine=0.832
	// zz transfer=false cosine=0.000
}
