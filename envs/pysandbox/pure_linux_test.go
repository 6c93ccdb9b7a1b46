package pysandbox

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestPureCalls checks that a plain worker keeps the runner of a pure
// call for the next pure calls (no process is forked or ended while
// they run, errors included), that code which is not pure runs in a
// fresh runner (a process is forked), and that what such code changes
// (a module's attribute, the runner's own globals through a frame) is
// not seen by the pure calls after it.
func TestPureCalls(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Workers, cfg.Limits.Timeout = 1, time.Second
	s := newSandbox(t, cfg)
	ctx := context.Background()
	call := func(code, want string) {
		t.Helper()
		if got := s.Call(ctx, code).Output; got != want {
			t.Errorf("Call(%q) = %q, want %q", code, got, want)
		}
	}
	call("print(sum(range(10)))", "45\n")
	time.Sleep(100 * time.Millisecond) // the spares are forked and ready
	before := sortedCopy(descendants(t))
	for _, step := range []struct{ code, want string }{
		{"print(6 * 7)", "42\n"},
		{"import math\nprint(math.pi)", "3.141592653589793\n"},
		{"1 / 0", "error: ZeroDivisionError: division by zero"},
		{"def f(n):\n    return f(n + 1)\nf(0)", "error: RecursionError: maximum recursion depth exceeded"},
		{"x = 5", EmptyOutput},
	} {
		call(step.code, step.want)
	}
	after := sortedCopy(descendants(t))
	if !slices.Equal(before, after) {
		t.Errorf("pure calls changed the worker's processes: %v, then %v", before, after)
	}
	for _, step := range []struct{ attack, check, want string }{
		{"import math\nmath.pi = 3", "import math\nprint(math.pi)", "3.141592653589793\n"},
		{"g = (x for x in [1])\nf = g.gi_frame\nwhile f is not None:\n    f.f_globals['fresh_globals'] = None\n    f = f.f_back",
			"print(6 * 7)", "42\n"},
		{"import builtins\nbuiltins.print = None", "print(6 * 7)", "42\n"},
	} {
		s.Call(ctx, step.attack)
		call(step.check, step.want)
	}
	if d := descendants(t); slices.Equal(before, sortedCopy(d)) {
		t.Errorf("calls that are not pure ran without a fresh runner: processes %v unchanged", d)
	}
	if r := s.Call(ctx, "while True:\n    pass"); r.Output != "error: timeout after 1s" {
		t.Errorf("endless pure call = %+v, want a timeout", r)
	}
	call("print(6 * 7)", "42\n")
}

func sortedCopy(x []int) []int {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}
