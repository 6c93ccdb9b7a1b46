package arith

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/pysandbox"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// TestSolutionLanguages: a worked solution writes the same computation in
// either language, Python's integer division as //.
func TestSolutionLanguages(t *testing.T) {
	cases := []struct {
		name  string
		sol   func(lang) solution
		l     lang
		plan  string
		calls []string
	}{
		{"mul go", Problem{Mul, 4821, 37, 0, 0}.solution, goCode, "4821 * 37", []string{"fmt.Println(4821 * 37)"}},
		{"mul python", Problem{Mul, 4821, 37, 0, 0}.solution, pythonCode, "4821 * 37", []string{"print(4821 * 37)"}},
		{"div go", Problem{Div, 4810, 37, 0, 0}.solution, goCode, "4810 / 37", []string{"fmt.Println(4810 / 37)"}},
		{"div python", Problem{Div, 4810, 37, 0, 0}.solution, pythonCode, "4810 // 37", []string{"print(4810 // 37)"}},
		{"mod python", Problem{Mod, 4821, 37, 0, 0}.solution, pythonCode, "4821 % 37", []string{"print(4821 % 37)"}},
		{"chain go", Chain{3, 482, 37, 64, 25, 0, 0}.solution, goCode, "482 * 37 % 64 + 25",
			[]string{"fmt.Println(482 * 37)", "fmt.Println(17834 % 64)", "fmt.Println(42 + 25)"}},
		{"chain python", Chain{3, 482, 37, 64, 25, 0, 0}.solution, pythonCode, "482 * 37 % 64 + 25",
			[]string{"print(482 * 37)", "print(17834 % 64)", "print(42 + 25)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.sol(c.l)
			var calls []string
			for _, k := range s.calls {
				calls = append(calls, k.code)
			}
			if s.plan != c.plan || !slices.Equal(calls, c.calls) {
				t.Errorf("solution = %q %q, want %q %q", s.plan, calls, c.plan, c.calls)
			}
		})
	}
}

// TestPythonDemonstrations: with tool.kind python both families write
// their worked solutions in Python, and every snippet of every
// demonstration, run again in a fresh jail, prints the value the
// demonstration recorded; the last one prints the task's answer.
func TestPythonDemonstrations(t *testing.T) {
	py, err := pysandbox.New(pysandbox.DefaultConfig())
	if err != nil {
		t.Skipf("no Python jail here: %v", err)
	}
	defer py.Close()
	f := format.DefaultFormat()
	cases := []struct {
		name string
		sec  section
	}{
		{"arith", func() *Config { c := DefaultConfig(); return &c }()},
		{"multistep", func() *ChainConfig { c := DefaultChainConfig(); return &c }()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, err := c.sec.open(f)
			if err != nil {
				t.Fatal(err)
			}
			req := family.DemoRequest{Format: f, Size: 24, ToolFraction: 1, ToolKind: family.PythonTool,
				Sample: func(n int) []envs.Task { return set.Train().Sample(rand.New(rand.NewSource(1)), n) },
				RNG:    rand.New(rand.NewSource(2))}
			demos, err := set.Demonstrations(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(demos) != req.Size {
				t.Fatalf("%d demonstrations, want %d", len(demos), req.Size)
			}
			for _, d := range demos {
				checkPythonDemo(t, py, f, d)
			}
		})
	}
}

// checkPythonDemo runs each snippet of d in py and compares what it
// prints with the output d recorded after it, and the last output with
// d's answer.
func checkPythonDemo(t *testing.T, py *pysandbox.Sandbox, f format.Format, d rollout.Demo) {
	t.Helper()
	var last string
	for i, s := range d.Segments {
		code, ok := between(s.Text, format.Open(f.Code), format.Close(f.Code))
		if !ok {
			continue
		}
		if !strings.HasPrefix(code, "print(") {
			t.Errorf("%s: snippet %q is not Python", d.Task.ID, code)
		}
		res := py.Call(context.Background(), code)
		last = strings.TrimSpace(res.Output)
		if res.Status != envs.StatusOK || i+1 >= len(d.Segments) || !strings.Contains(d.Segments[i+1].Text, res.Output) {
			t.Errorf("%s: %q printed %s %q, not what the demonstration records", d.Task.ID, code, res.Status, res.Output)
		}
	}
	if !d.UsesTool || last != d.Task.Answer {
		t.Errorf("%s: the last snippet printed %q, want the answer %q (uses tool %v)", d.Task.ID, last, d.Task.Answer, d.UsesTool)
	}
}

// between returns the text of s between open and close.
func between(s, open, close string) (string, bool) {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	body, _, ok := strings.Cut(rest, close)
	return body, ok
}

// TestPythonDemosUseRunInterpreter: the Python demonstrations run on the
// run's tool.python: an interpreter that does not exist stops them,
// named, where the default one writes them.
func TestPythonDemosUseRunInterpreter(t *testing.T) {
	f := format.DefaultFormat()
	c := DefaultConfig()
	set, err := (&c).open(f)
	if err != nil {
		t.Fatal(err)
	}
	req := family.DemoRequest{Format: f, Size: 2, ToolFraction: 1, ToolKind: family.PythonTool,
		Sample: func(n int) []envs.Task { return set.Train().Sample(rand.New(rand.NewSource(1)), n) },
		RNG:    rand.New(rand.NewSource(2))}
	req.Python = pysandbox.DefaultConfig().Runtime
	if _, err := set.Demonstrations(context.Background(), req); err != nil {
		t.Fatalf("the default interpreter, given explicitly: %v", err)
	}
	req.Python.Interpreter = "/usr/bin/no-such-python3"
	_, err = set.Demonstrations(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "no-such-python3") {
		t.Errorf("demonstrations on a missing interpreter: %v, want an error naming it", err)
	}
}
