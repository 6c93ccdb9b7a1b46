package arith

import (
	"context"
	"reflect"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// TestDemonstrationsART: in the art style each step is a call line whose
// result is the next numbered, masked "#n: " line.
func TestChainDemonstrationsART(t *testing.T) {
	f := format.DefaultFormat()
	f.Style = format.StyleART
	task := Chain{3, 482, 37, 64, 25, 0, 0}.Task()
	tool := &scriptTool{outs: []string{"17834\n", "42\n", "67\n"}}
	demos, err := ChainDemonstrations(context.Background(), f, []envs.Task{task}, []bool{true}, tool)
	if err != nil {
		t.Fatal(err)
	}
	want := []rollout.Segment{
		{Text: "482 * 37 % 64 + 25\n[code] fmt.Println(482 * 37)\n"},
		{Text: "#1: 17834\n", Tool: true},
		{Text: "[code] fmt.Println(17834 % 64)\n"},
		{Text: "#2: 42\n", Tool: true},
		{Text: "[code] fmt.Println(42 + 25)\n"},
		{Text: "#3: 67\n", Tool: true},
		{Text: "Ans: 67\n"},
	}
	if got := demos[0].Segments; !reflect.DeepEqual(got, want) {
		t.Fatalf("segments\n %+v\nwant\n %+v", got, want)
	}
}
