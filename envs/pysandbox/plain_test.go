package pysandbox

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

// TestPlainWorkers checks the split between plain and full workers: a
// stateless call that names no library runs where none is loaded; one
// that imports a library anyway (by a name built at run time) runs again,
// whole, in a full worker, however it guards the import, and its output
// is that of the full run alone; a missing module fails as in a full
// worker; the hand-off leaves the call no more time than it was given;
// and a stateful session's calls run in a full worker.
func TestPlainWorkers(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.Workers, cfg.Limits.Timeout = 1, time.Second
	s := newSandbox(t, cfg)
	if !slices.Contains(s.libNames, "sympy") || !slices.Contains(s.libNames, "numpy") {
		t.Fatalf("libraries %q: the test needs numpy and sympy (apt-get install python3-numpy python3-sympy)", s.Libraries())
	}
	hint := "the standard library, " + strings.Join(s.libNames, ", ")
	ctx := context.Background()
	for i, tc := range []struct{ input, want string }{
		{"import sys\nprint('sym' + 'py' in sys.modules, 'fractions' in sys.modules)", "False True\n"},
		{"import sys\nprint('sympy' in sys.modules)  # sympy named", "True\n"},
		{"print('a')\nm = __import__('sym' + 'py')\nprint(m.factor(m.Symbol('x')**2 - 1))", "a\n(x - 1)*(x + 1)\n"},
		{"try:\n    __import__('nu' + 'mpy')\n    import sys\n    print('numpy' in sys.modules)\nexcept BaseException:\n    print('caught')", "True\n"},
		{"import importlib.util\nprint(importlib.util.find_spec('mp' + 'math') is not None)", "True\n"},
		{"import scipy", "error: ModuleNotFoundError: module 'scipy' is not available in the sandbox; available: " + hint},
		{"open('/tmp/f', 'w').write('x')\n__import__('sym' + 'py')\nimport os\nprint(os.listdir('/tmp'))", "['f']\n"},
	} {
		if got := s.Call(ctx, tc.input).Output; got != tc.want {
			t.Errorf("case %d: Call(%q) = %q, want %q", i, tc.input, got, tc.want)
		}
	}
	start := time.Now()
	r := s.Run(ctx, "import time\ntime.sleep(0.7)\n__import__('sym' + 'py')\ntime.sleep(0.7)")
	if elapsed := time.Since(start); r.Status != envs.StatusTimeout || r.Message != "timeout after 1s" || elapsed > 1600*time.Millisecond {
		t.Errorf("a hand-off after 0.7s of a 1s timeout = %s %q after %v, want timeout after 1s within 1.6s", r.Status, r.Message, elapsed)
	}
	cfg.Limits.Stateful = true
	ss := newSandbox(t, cfg).Session()
	defer ss.Close()
	ss.Call(ctx, "x = 1")
	if got := ss.Call(ctx, "import sys\nprint('sympy' in sys.modules, x)").Output; got != "True 1\n" {
		t.Errorf("a session's call = %q, want it in a full worker with its globals", got)
	}
}
