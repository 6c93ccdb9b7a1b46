package atlass

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/toollib"
	"github.com/artist-rl/artist/rollout"
)

func TestDecodePlan(t *testing.T) {
	cases := []struct {
		reply string
		want  string // "" for accepted; else a part of the error
		tools int
	}{
		{`{"needs_tools": false, "tools": []}`, "", 0},
		{"```json\n{\"needs_tools\": true, \"tools\": [{\"name\": \"isPrime\", \"description\": \"isPrime reports whether n is prime.\"}]}\n```", "", 1},
		{`Here you go: {"needs_tools": true, "tools": [{"name": "a", "description": "x"}, {"name": "b", "description": "y"}]} Hope it helps.`, "", 2},
		{`no json here`, "holds no JSON object", 0},
		{`{"needs_tools": tru}`, "not valid JSON", 0},
		{`{"tools": []}`, `no "needs_tools" key`, 0},
		{`{"needs_tools": false}`, `no "tools" key`, 0},
		{`{"needs_tools": "yes", "tools": []}`, "required shape", 0},
		{`{"needs_tools": false, "tools": [], "reason": "x"}`, `unknown field "reason"`, 0},
		{`{"needs_tools": true, "tools": []}`, `"tools" is empty`, 0},
		{`{"needs_tools": false, "tools": [{"name": "a", "description": "x"}]}`, `set it to true`, 0},
		{`{"needs_tools": true, "tools": [{"name": "is-prime", "description": "x"}]}`, `not a usable Go function name`, 0},
		{`{"needs_tools": true, "tools": [{"name": "main", "description": "x"}]}`, `not a usable Go function name`, 0},
		{`{"needs_tools": true, "tools": [{"name": "a", "description": "x"}, {"name": "a", "description": "y"}]}`, `listed twice`, 0},
		{`{"needs_tools": true, "tools": [{"name": "a", "description": " "}]}`, `empty description`, 0},
	}
	for i, c := range cases {
		var p Plan
		err := decodeReply(c.reply, &p, "needs_tools", "tools")
		if err == nil {
			err = p.validate()
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d: %v, want accepted", i, err)
		case c.want == "" && len(p.Tools) != c.tools:
			t.Errorf("case %d: %d tools, want %d", i, len(p.Tools), c.tools)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("case %d: error %v, want one with %q", i, err, c.want)
		}
	}
}

func TestValidateAnalysis(t *testing.T) {
	cases := []struct {
		a    Analysis
		want string
	}{
		{Analysis{Subtasks: []string{"add", "print"}}, ""},
		{Analysis{}, "is empty"},
		{Analysis{Subtasks: []string{"add", "  "}}, "subtask 2 is empty"},
		{Analysis{Subtasks: make([]string, maxSubtasks+1)}, "at most"},
	}
	for i, c := range cases {
		err := c.a.validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: %v, want %q", i, err, c.want)
		}
	}
}

func TestValidateMatches(t *testing.T) {
	needs := []Need{
		{ToolSpec: ToolSpec{Name: "gcdOf"}, Candidates: []Record{{ID: 4}, {ID: 9}}},
		{ToolSpec: ToolSpec{Name: "lcmOf"}},
	}
	id := func(v int64) *int64 { return &v }
	cases := []struct {
		m    []Match
		want string
	}{
		{[]Match{{"gcdOf", id(9), "same job"}, {"lcmOf", nil, "none"}}, ""},
		{[]Match{{"lcmOf", nil, "none"}, {"gcdOf", nil, "none fits"}}, ""},
		{[]Match{{"gcdOf", id(9), "same job"}}, `"lcmOf" has no match`},
		{[]Match{{"gcdOf", id(5), "x"}, {"lcmOf", nil, "none"}}, "id 5 is not one of its candidates"},
		{[]Match{{"gcdOf", nil, "x"}, {"lcmOf", id(4), "x"}}, "id 4 is not one of its candidates"},
		{[]Match{{"gcd", nil, "x"}}, `"gcd" is not a needed tool; the needed tools are gcdOf, lcmOf`},
		{[]Match{{"gcdOf", nil, "x"}, {"gcdOf", nil, "y"}}, "decided twice"},
		{[]Match{{"gcdOf", nil, ""}, {"lcmOf", nil, "y"}}, `"why" is empty`},
	}
	for i, c := range cases {
		err := validateMatches(c.m, needs)
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: %v, want %q", i, err, c.want)
		}
	}
}

func TestGoSource(t *testing.T) {
	src := "func f() int { return 1 }"
	cases := []struct{ reply, want string }{
		{src, src},
		{"```go\n" + src + "\n```", src},
		{"Here it is:\n```\n" + src + "\n```\nDone.", src},
		{"```go\n" + src + "\n```\nand a test:\n```go\nf()\n```", src},
		{"```go\n" + src, src},
	}
	for i, c := range cases {
		if got := goSource(c.reply); got != c.want {
			t.Errorf("case %d: goSource = %q, want %q", i, got, c.want)
		}
	}
}

func TestPrelude(t *testing.T) {
	code := newSandbox(t)
	tool, err := toollib.ParseTool(gcdSource)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, input string
		status      envs.Status
		output      string
	}{
		{"snippet calls the tool", "fmt.Println(gcd(84, 36))", envs.StatusOK, "12\n"},
		{"program runs unchanged", "// a program\npackage main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(7) }", envs.StatusOK, "7\n"},
		{"snippet declares its own", "func gcd(a, b int) int { return -1 }\nfmt.Println(gcd(4, 6))", envs.StatusOK, "-1\n"},
		{"program does not see the tool", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(gcd(4, 6)) }", envs.StatusError, ""},
	}
	pt := &preludeTool{inner: code, tools: []toollib.Tool{tool}}
	sess := pt.OpenSession(envs.Task{})
	defer sess.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, tool := range []envs.Tool{pt, sess} {
				r := tool.Call(context.Background(), c.input)
				if r.Status != c.status || c.output != "" && r.Output != c.output {
					t.Errorf("%T: %+v, want %s %q", tool, r, c.status, c.output)
				}
			}
		})
	}
}

func TestShapeAndCalled(t *testing.T) {
	cases := []struct {
		src      string
		program  bool
		declared string
	}{
		{"fmt.Println(1)", false, ""},
		{"// doc\npackage main\nfunc main() {}", true, "main"},
		{"func a() {}\nfunc (t T) b() {}\nf := func() {}\nfunc c[T any](x T) {}", false, "a c"},
		{"x := 1\nif x > 0 { func() {}() }", false, ""},
	}
	for i, c := range cases {
		program, declared := shape(c.src)
		var names []string
		for n := range declared {
			names = append(names, n)
		}
		slices.Sort(names)
		if program != c.program || strings.Join(names, " ") != c.declared {
			t.Errorf("case %d: shape = %v %v, want %v %q", i, program, names, c.program, c.declared)
		}
	}
	traj := &rollout.Trajectory{Calls: []rollout.Call{{Input: "x := gcd (4, 6)\nfmt.Println(x, lcm)"}, {Input: "// isPrime(7)\nfmt.Println(\"digitSum(1)\")"}}}
	tools := []toollib.Tool{{Name: "lcm"}, {Name: "gcd"}, {Name: "isPrime"}, {Name: "digitSum"}}
	if got := called(traj, []int64{1, 2, 3, 4}, tools); !slices.Equal(got, []int64{2}) {
		t.Errorf("called = %v, want [2]: only gcd is called; names in comments, strings or without a call do not count", got)
	}
}

func TestPipelineNeedsItsParts(t *testing.T) {
	_, err := (&Pipeline{Chat: &ClientChat{}}).Run(context.Background(), envs.Task{Prompt: "x"})
	if err == nil || !strings.Contains(err.Error(), "Pipeline.Solver is nil") {
		t.Errorf("Run = %v, want an error naming Solver", err)
	}
}
