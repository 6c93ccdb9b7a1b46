package runlog

import (
	"reflect"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

func TestSegmentsART(t *testing.T) {
	art := format.DefaultFormat()
	art.Style = format.StyleART
	ok := rollout.Call{Result: envs.Result{Status: envs.StatusOK}}
	bad := rollout.Call{Result: envs.Result{Status: envs.StatusError}}
	cases := []struct {
		name   string
		prompt []string
		pieces []piece
		calls  []rollout.Call
		want   []want
		status []string
	}{
		{
			name:   "two calls",
			prompt: []string{"Q: 2+3?", "\n"},
			pieces: []piece{
				{1, []string{"add", "\n", "[code]", " fmt.Println(2+3)", "\n"}},
				{0, []string{"#1: ", "5", "\n"}},
				{1, []string{"Q2: ", "[code]", " fmt.Println(5*2)", "\n"}},
				{0, []string{"#2: ", "a", "\n#2: ", "b", "\n"}},
				{1, []string{"Ans:", " 10", "\n"}},
			},
			calls: []rollout.Call{ok, bad},
			want: []want{
				{Prompt, "Q: 2+3?\n", 2},
				{Model, "add\n", 2},
				{ToolCall, "[code] fmt.Println(2+3)\n", 3},
				{ToolResult, "#1: 5\n", 3},
				{ToolCall, "Q2: [code] fmt.Println(5*2)\n", 4},
				{ToolResult, "#2: a\n#2: b\n", 5},
				{Model, "Ans: 10\n", 3},
			},
			status: []string{"ok", "error"},
		},
		{
			name:   "newline straddles tokens",
			prompt: []string{"Q?\n"},
			pieces: []piece{
				{1, []string{"plan\n[co", "de] x)", "\nA"}},
				{0, []string{"\n", "#1: ", "5", "\n"}},
				{1, []string{"ns: 5\n"}},
			},
			calls: []rollout.Call{ok},
			want: []want{
				{Prompt, "Q?\n", 1},
				{ToolCall, "plan\n[code] x)\nA", 3},
				{ToolResult, "\n#1: 5\n", 4},
				{Model, "ns: 5\n", 1},
			},
			status: []string{"ok"},
		},
		{
			name:   "call cut by the budget",
			prompt: []string{"Q?\n"},
			pieces: []piece{{1, []string{"hm", "\n", "[code]", " for {"}}},
			want: []want{
				{Prompt, "Q?\n", 1},
				{Model, "hm\n", 2},
				{ToolCall, "[code] for {", 2},
			},
		},
		{
			name:   "tags are text",
			prompt: []string{"Q?\n"},
			pieces: []piece{{1, []string{"<code>", "x", "</code>", "Ans: 1"}}},
			want:   []want{{Prompt, "Q?\n", 1}, {Model, "<code>x</code>Ans: 1", 4}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := &vocab{}
			tr := build(v, c.prompt, c.pieces, c.calls)
			segs := Segments(tr, v, art)
			var got []want
			var status []string
			for _, s := range segs {
				got = append(got, want{s.Kind, s.Text, s.Tokens})
				if s.Kind == ToolResult {
					status = append(status, s.Status)
				}
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("segments\n got %+v\nwant %+v", got, c.want)
			}
			if !reflect.DeepEqual(status, c.status) {
				t.Errorf("tool result statuses %q, want %q", status, c.status)
			}
			checkCover(t, tr, v, segs)
		})
	}
}
