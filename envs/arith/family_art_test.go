package arith

import (
	"context"
	"reflect"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/reward"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// TestDemonstrationsART: in the art style a worked solution is ART
// program lines, the tool's output the masked "#1: " line, and the
// rewards of the style score it in full.
func TestDemonstrationsART(t *testing.T) {
	f := format.DefaultFormat()
	f.Style = format.StyleART
	task := Problem{Mul, 4821, 37, 0, 1}.Task()
	cases := []struct {
		name    string
		useTool bool
		want    []rollout.Segment
		strict  float64
	}{
		{"direct", false, []rollout.Segment{{Text: "4821 * 37\nAns: 178377\n"}}, 0},
		{"tool", true, []rollout.Segment{
			{Text: "4821 * 37\n[code] fmt.Println(4821 * 37)\n"},
			{Text: "#1: 178377\n", Tool: true},
			{Text: "Ans: 178377\n"},
		}, 0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			demos, err := Demonstrations(context.Background(), f, []envs.Task{task}, []bool{c.useTool}, echoTool{"178377\n"})
			if err != nil {
				t.Fatal(err)
			}
			if got := demos[0].Segments; !reflect.DeepEqual(got, c.want) || demos[0].UsesTool != c.useTool {
				t.Fatalf("segments %+v (uses tool %v), want %+v", got, demos[0].UsesTool, c.want)
			}
			tr := &rollout.Trajectory{Response: demos[0].Response()}
			if !reward.Correct(tr, task, f) {
				t.Errorf("the demonstration's answer is not graded correct")
			}
			if got, _ := reward.FormatStrict(f)(tr, task); got != c.strict {
				t.Errorf("format_strict %v, want %v", got, c.strict)
			}
		})
	}
}
