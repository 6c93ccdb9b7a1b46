package library

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

func artFormat() format.Format { f := format.DefaultFormat(); f.Style = format.StyleART; return f }

// TestRolloutRoundTripART turns the fixture into art-style warm-start
// solutions and back: the masked segments are the "#n: " results, and
// reasoning, calls (written as one line, format.OneLine), results and
// answer come back.
func TestRolloutRoundTripART(t *testing.T) {
	f := artFormat()
	for i, d := range loadFixture(t).Demos {
		r := ToRollout(d, f)
		n := 0
		for _, s := range r.Segments {
			if s.Tool {
				n++
				if !strings.HasPrefix(s.Text, f.ResultPrefix(n)) || !strings.HasSuffix(s.Text, "\n") {
					t.Errorf("case %d: masked segment %q is not result %d", i, s.Text, n)
				}
			}
		}
		back, err := FromRollout(r, f, d.Family, "sandbox")
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		want := d
		want.Steps = nil
		for _, s := range d.Steps {
			s.Call = format.OneLine(s.Call)
			s.Result = strings.TrimRight(s.Result, "\n")
			want.Steps = append(want.Steps, s)
		}
		back.Description, back.Line = d.Description, d.Line
		if !reflect.DeepEqual(back, want) {
			t.Errorf("case %d: round trip\n got %+v\nwant %+v", i, back, want)
		}
	}
}

func TestFromRolloutErrorsART(t *testing.T) {
	f := artFormat()
	task := envs.Task{ID: "t", Prompt: "q"}
	cases := []struct {
		segs []rollout.Segment
		want string
	}{
		{[]rollout.Segment{{Text: "[code] x\n"}}, "last call has no result"},
		{[]rollout.Segment{{Text: "x\n"}, {Text: "#1: 1\n", Tool: true}}, "is not the result of call 0"},
		{[]rollout.Segment{{Text: "[code] x\n"}, {Text: "#2: 1\n", Tool: true}}, "is not the result of call 1"},
		{[]rollout.Segment{{Text: "[code] x\n#1: 5\n"}}, "before a call's result"},
		{[]rollout.Segment{{Text: "x\n#1: 5\nAns: 5\n"}}, "written by the policy"},
		{[]rollout.Segment{{Text: "thinking\n"}}, "has no answer line"},
		{[]rollout.Segment{{Text: "Ans: 1\nmore\n"}}, "after the answer"},
	}
	for i, c := range cases {
		_, err := FromRollout(rollout.Demo{Task: task, Segments: c.segs}, f, "arith", "sandbox")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: err %v, want %q", i, err, c.want)
		}
	}
}

// TestPromptGoldenARTFormat renders the chosen demonstrations in the
// run's format when its style is art (SyntaxTags follows the format),
// against testdata/prompt_artformat.golden.
func TestPromptGoldenARTFormat(t *testing.T) {
	ix := NewIndex(loadFixture(t))
	task := envs.Task{ID: "t", Prompt: "A jar holds 40 coins. 12 are taken out. How many coins are left?"}
	got := Prefix(mustSelect(t, ix, "arith", task.Prompt, 2), artFormat(), SyntaxTags) + rollout.PromptText(task)
	path := filepath.Join("testdata", "prompt_artformat.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("prompt:\n%s\nwant:\n%s", got, want)
	}
}
