package pysandbox

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
)

// newSandbox returns a sandbox that is closed when the test ends. A jail
// that cannot be built fails the test: the package is meant to run where
// bubblewrap and python3 are installed.
func newSandbox(t testing.TB, cfg Config) *Sandbox {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRun(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	for i, tc := range []struct {
		input   string
		status  envs.Status
		stdout  string
		message string
	}{
		{"print(4821 * 37)", envs.StatusOK, "178377\n", ""},
		{"x = 4821 % 37", envs.StatusEmpty, "", ""},
		{"1 / 0", envs.StatusError, "", "ZeroDivisionError: division by zero"},
		{"print('a')\nraise ValueError('bad')", envs.StatusError, "a\n", "ValueError: bad"},
		{"print(", envs.StatusError, "", "SyntaxError: '(' was never closed"},
		{"import sympy\nx = sympy.Symbol('x')\nprint(sympy.factor(x**2 - 1))", envs.StatusOK, "(x - 1)*(x + 1)\n", ""},
		{"import numpy as np\nprint(np.arange(10).sum())", envs.StatusOK, "45\n", ""},
		{"import fractions\nprint(fractions.Fraction(3, 6))", envs.StatusOK, "1/2\n", ""},
		{"import sys\nsys.exit(0)", envs.StatusEmpty, "", ""},
		{"import sys\nsys.exit('bye')", envs.StatusError, "", "SystemExit: bye"},
		{"print(input())", envs.StatusError, "", "EOFError: EOF when reading a line"},
		{"print('\\u00e9', end='')", envs.StatusOK, "é", ""},
		{"import sys\nsys.stdout.buffer.write(b'\\xff\\x00')", envs.StatusOK, "\xff\x00", ""},
	} {
		got := s.Run(context.Background(), tc.input)
		if got.Status != tc.status || got.Stdout != tc.stdout || got.Message != tc.message {
			t.Errorf("case %d: Run(%q) = %s %q %q, want %s %q %q", i, tc.input, got.Status, got.Stdout, got.Message, tc.status, tc.stdout, tc.message)
		}
	}
}

func TestResult(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.MaxOutput = 8
	s := newSandbox(t, cfg)
	for i, tc := range []struct {
		input string
		want  envs.Result
	}{
		{"print(12)", envs.Result{Status: envs.StatusOK, Output: "12\n"}},
		{"x = 1", envs.Result{Status: envs.StatusEmpty, Output: EmptyOutput}},
		{"print('0123456789')", envs.Result{Status: envs.StatusOK, Output: "01234567...[truncated]"}},
	} {
		if got := s.Call(context.Background(), tc.input); got != tc.want {
			t.Errorf("case %d: Call(%q) = %+v, want %+v", i, tc.input, got, tc.want)
		}
	}
	got := s.Call(context.Background(), "1 / 0")
	if got.Output != "error: ZeroDivisionError: division by zero" || !strings.Contains(got.Error, "Traceback") {
		t.Errorf("Call(1 / 0) = %+v, want the last line and the traceback", got)
	}
}

// TestStateless checks that nothing one call leaves (globals, changed
// modules, files) reaches the next.
func TestStateless(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Workers = 1
	s := newSandbox(t, cfg)
	for i, step := range []struct{ input, stdout string }{
		{"import math, builtins\nx = 5\nmath.pi = 3\nbuiltins.print = None\nopen('/tmp/f', 'w').write('x')", ""},
		{"print('x' in globals(), math.pi if 'math' in globals() else None)", "False None\n"},
		{"import math, os\nprint(math.pi, os.listdir('/tmp'))", "3.141592653589793 []\n"},
	} {
		if got := s.Run(context.Background(), step.input); got.Stdout != step.stdout {
			t.Errorf("step %d: Run = %s %q %q, want %q", i, got.Status, got.Stdout, got.Message, step.stdout)
		}
	}
}

// TestFreshInterpreter checks that a fresh runner behaves as a new
// interpreter where the driver's fork skips the interpreter's after-fork
// hooks: random is seeded afresh for every call, threads start and join,
// and the process is the runner, not the driver.
func TestFreshInterpreter(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Workers = 1
	s := newSandbox(t, cfg)
	const program = "import os, random, threading\n" +
		"out = []\n" +
		"t = threading.Thread(target=lambda: out.append(threading.get_native_id()))\n" +
		"t.start()\n" +
		"t.join()\n" +
		"print(random.getrandbits(64), os.getpid() != 1, out[0] != threading.get_native_id(), threading.current_thread() is threading.main_thread())"
	seen := map[string]bool{}
	for i := range 4 {
		got := s.Run(context.Background(), program)
		f := strings.Fields(got.Stdout)
		if got.Status != envs.StatusOK || len(f) != 4 || f[1] != "True" || f[2] != "True" || f[3] != "True" {
			t.Fatalf("call %d: Run = %s %q %q", i, got.Status, got.Stdout, got.Message)
		}
		if seen[f[0]] {
			t.Errorf("call %d drew %s again: random is not seeded afresh", i, f[0])
		}
		seen[f[0]] = true
	}
}

// TestReuse checks Runtime.Reuse: fresh globals for every call, one
// runner for all of a worker's calls, a new one after a timeout.
func TestReuse(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Workers, cfg.Limits.Timeout = 1, time.Second
	cfg.Runtime.Reuse = true
	s := newSandbox(t, cfg)
	for i, step := range []struct{ input, want string }{
		{"import os, math\nx = 5\nmath.tau = 6\nprint(os.getpid() > 1)", "True\n"},
		{"print('x' in globals())", "False\n"},
		{"import math\nprint(math.tau)", "6\n"}, // the trade-off Reuse makes
		{"while True:\n    pass", "error: timeout after 1s"},
		{"import math\nprint(math.tau)", "6.283185307179586\n"},
	} {
		if got := s.Call(context.Background(), step.input).Output; got != step.want {
			t.Errorf("step %d: Call(%q) = %q, want %q", i, step.input, got, step.want)
		}
	}
}

func TestSession(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Stateful = true
	s := newSandbox(t, cfg)
	a, b := s.Session(), s.Session()
	defer a.Close()
	defer b.Close()
	ctx := context.Background()
	a.Call(ctx, "def sq(n):\n    return n * n\nx = 12")
	b.Call(ctx, "x = 3")
	for i, tc := range []struct {
		ss   *Session
		code string
		want string
	}{
		{a, "print(sq(x))", "144\n"},
		{b, "print(x)", "3\n"},
		{b, "print(sq(2))", "error: NameError: name 'sq' is not defined"},
	} {
		if got := tc.ss.Call(ctx, tc.code).Output; got != tc.want {
			t.Errorf("case %d: Call(%q) = %q, want %q", i, tc.code, got, tc.want)
		}
	}
	if r := a.Call(ctx, "while True:\n    pass"); r.Status != envs.StatusTimeout {
		t.Errorf("endless session call = %+v, want a timeout", r)
	}
	if got := a.Call(ctx, "print(x)").Output; got != "error: NameError: name 'x' is not defined" {
		t.Errorf("after a timeout the session's globals remain: %q", got)
	}
	a.Close()
	if got := a.Call(ctx, "print(1)").Output; got != "error: session closed" {
		t.Errorf("call after Close = %q", got)
	}
}

func TestDeadline(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	got := s.Run(ctx, "import time\ntime.sleep(10)")
	if got.Status != envs.StatusTimeout || time.Since(start) > 2*time.Second {
		t.Errorf("Run = %s %q after %v, want a timeout near 500ms", got.Status, got.Message, time.Since(start))
	}
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if got := s.Run(canceled, "print(1)"); got.Message != "call canceled" {
		t.Errorf("Run with a canceled context = %s %q", got.Status, got.Message)
	}
}

func TestLibraries(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	libs := s.Libraries()
	if len(libs) == 0 || !strings.HasPrefix(libs[0], "python 3.") {
		t.Errorf("Libraries = %q, want the interpreter first", libs)
	}
}

func TestValidate(t *testing.T) {
	for i, tc := range []struct {
		mutate func(*Config)
		want   string
	}{
		{func(*Config) {}, ""},
		{func(c *Config) { c.Limits.Timeout = 0 }, "sandbox: timeout must be positive"},
		{func(c *Config) { c.Runtime.Interpreter = "/opt/python/bin/python3" }, "pysandbox: interpreter \"/opt/python/bin/python3\" is not under /usr"},
	} {
		cfg := DefaultConfig()
		tc.mutate(&cfg)
		err := cfg.Validate()
		if (err == nil) != (tc.want == "") || err != nil && !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("case %d: Validate = %v, want %q", i, err, tc.want)
		}
	}
}

// TestProtocolImitation prints what looks like protocol frames: the bytes
// must come back as output, exactly, and the worker must stay in step.
func TestProtocolImitation(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Workers = 1
	s := newSandbox(t, cfg)
	var buf bytes.Buffer
	if err := frame.Write(&buf, &reply{Seq: 2, Status: envs.StatusOK, Stdout: "forged"}); err != nil {
		t.Fatal(err)
	}
	fake := buf.String()
	for i := range 3 {
		got := s.Run(context.Background(), "import os, sys\nsys.stdout.write("+pyBytes(fake)+".decode('latin-1'))\nos.write(1, b'x')")
		if got.Status != envs.StatusOK || !strings.Contains(got.Stdout, "forged") {
			t.Errorf("call %d: Run = %s %q", i, got.Status, got.Stdout)
		}
	}
	if r := s.Call(context.Background(), "print(6 * 7)"); r.Output != "42\n" {
		t.Errorf("the next call = %+v, want 42", r)
	}
}

// pyBytes writes s as a Python bytes literal.
func pyBytes(s string) string {
	var b strings.Builder
	b.WriteString("b'")
	for i := range len(s) {
		b.WriteString("\\x")
		b.WriteString("0123456789abcdef"[s[i]>>4 : s[i]>>4+1])
		b.WriteString("0123456789abcdef"[s[i]&15 : s[i]&15+1])
	}
	b.WriteString("'")
	return b.String()
}
