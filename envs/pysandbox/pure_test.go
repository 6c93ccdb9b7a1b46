package pysandbox

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// pureCases are programs and whether pure.py's pure finds them pure: a
// pure program may share a runner with earlier pure ones, so each impure
// case is a way a program could change what a later one sees.
var pureCases = []struct {
	code string
	pure bool
}{
	{"print(4821 * 37)", true},
	{"x = 51952 // 764\nprint(x, x % 7)", true},
	{"total = 0\nfor i in range(10):\n    if i % 2:\n        total += i\nprint(total)", true},
	{"def f(n):\n    return 1 if n < 2 else n * f(n - 1)\nprint(f(10))", true},
	{"import math\nprint(math.sqrt(2), math.pi)", true},
	{"import math as m\nprint(m.gcd(12, 18))", true},
	{"from fractions import Fraction\nprint(Fraction(3, 6) + Fraction(1, 3))", true},
	{"import functools\n@functools.lru_cache(maxsize=None)\ndef fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nprint(fib(80))", true},
	{"from collections import Counter\nc = Counter('abracadabra')\nc['z'] += 1\nprint(c.most_common(2))", true},
	{"try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', e.args)", true},
	{"xs = [i * i for i in range(5)]\nd = {k: v for k, v in zip('ab', xs)}\nprint(f'{xs!r} {d}', sorted(xs, key=lambda v: -v))", true},
	{"if (n := 10) > 5:\n    print(n)", true},
	{"import itertools, statistics\nprint(list(itertools.combinations(range(4), 2)), statistics.mean([1, 2, 4]))", true},
	{"print(undefined_name)", false},
	{"import os\nprint(os.getpid())", false},
	{"import sys\nsys.setrecursionlimit(50)", false},
	{"import random\nprint(random.random())", false},
	{"import decimal\ndecimal.getcontext().prec = 5", false},
	{"import math\nmath.pi = 3", false},
	{"import math\nm = math", false},
	{"import math\nprint(math)", false},
	{"import math\ndef f(math):\n    return math\nf(1)", false},
	{"from math import *", false},
	{"import os.path", false},
	{"from collections import abc", false},
	{"from fractions import Fraction\nFraction.register(int)", false},
	{"x = [1]\nx.attr = 2", false},
	{"del print.x", false},
	{"g = (x for x in [1])\nprint(g.gi_frame.f_back.f_globals)", false},
	{"def f():\n    pass\nprint(f.__globals__)", false},
	{"try:\n    1 / 0\nexcept Exception as e:\n    print(e.__traceback__)", false},
	{"print(__builtins__)", false},
	{"_x = 1", false},
	{"__import__('os')", false},
	{"print(getattr(1, 'real'))", false},
	{"open('/tmp/x', 'w')", false},
	{"print(globals())", false},
	{"eval('1')", false},
	{"print(type(1))", false},
	{"print(id(1))", false},
	{"class A:\n    pass", false},
	{"x = 1\ndef f():\n    global x\n    x = 2", false},
	{"def g():\n    yield 1", false},
	{"with open('/tmp/x') as f:\n    pass", false},
	{"import operator\nprint(operator.attrgetter('gi_frame')((x for x in [1])))", false},
	{"print(", false},
}

// TestPureVerdicts runs pure.py's pure on each of pureCases with the
// jail's interpreter (outside the jail: nothing is run but the check),
// and checks that surely_impure, the driver's screen, calls none of the
// pure ones impure.
func TestPureVerdicts(t *testing.T) {
	codes := make([]string, len(pureCases))
	for i, tc := range pureCases {
		codes[i] = tc.code
	}
	in, err := json.Marshal(codes)
	if err != nil {
		t.Fatal(err)
	}
	const harness = `
import json, sys
modules = pure_modules()
for code in json.load(sys.stdin):
    tree = parse(code)
    verdict = tree is not None and pure(tree, modules)
    if verdict and surely_impure(code):
        verdict = "surely_impure disagrees"
    print(verdict)
`
	cmd := exec.Command(DefaultRuntime().Interpreter, "-I", "-c", pureSource+harness)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := strings.Fields(string(out))
	if len(got) != len(pureCases) {
		t.Fatalf("%d verdicts for %d cases: %q", len(got), len(pureCases), out)
	}
	for i, tc := range pureCases {
		if want := map[bool]string{true: "True", false: "False"}[tc.pure]; got[i] != want {
			t.Errorf("case %d: pure(%q) = %s, want %s", i, tc.code, got[i], want)
		}
	}
}
