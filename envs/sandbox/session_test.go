package sandbox

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

// TestStatefulSession runs a sequence of calls in one stateful session:
// each sees what the earlier ones defined and imported.
func TestStatefulSession(t *testing.T) {
	s := newSandbox(t, Config{Timeout: time.Second, MaxOutput: 4096, Stateful: true, Workers: 2})
	ss := s.Session()
	defer ss.Close()
	steps := []struct {
		name, input string
		status      envs.Status
		output      string
	}{
		{"define", "x := 20\nfunc double(n int) int { return 2 * n }", envs.StatusEmpty, EmptyOutput},
		{"use definitions", "fmt.Println(double(x) + 2)", envs.StatusOK, "42\n"},
		{"assign", "x = 7\nfmt.Println(double(x))", envs.StatusOK, "14\n"},
		{"import", "import \"math/big\"\nb := big.NewInt(5)", envs.StatusEmpty, EmptyOutput},
		{"import again and use earlier value", "import \"math/big\"\nfmt.Println(b.Mul(b, big.NewInt(3)))", envs.StatusOK, "15\n"},
		{"grouped import of a bound and a new package", "import (\n\t\"math/big\"\n\t\"sort\"\n)\nv := []int{3, 1}\nsort.Ints(v)\nfmt.Println(v, big.NewInt(1))", envs.StatusOK, "[1 3] 1\n"},
		{"import fmt explicitly", "import \"fmt\"\nfmt.Println(x)", envs.StatusOK, "7\n"},
		{"syntax error keeps state", "fmt.Println(", envs.StatusError, ""},
		{"state after the error", "fmt.Println(x, v)", envs.StatusOK, "7 [1 3]\n"},
		{"program sees definitions", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"main\", double(4)) }", envs.StatusOK, "main 8\n"},
		{"main does not run again", "fmt.Println(\"after\")", envs.StatusOK, "after\n"},
		{"program with a compile error", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(undefinedName) }", envs.StatusError, ""},
		{"same program fixed", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"fixed\") }", envs.StatusOK, "fixed\n"},
		{"types persist", "type P struct{ A, B int }\nfunc (p P) Sum() int { return p.A + p.B }", envs.StatusEmpty, EmptyOutput},
		{"use type", "fmt.Println(P{2, 3}.Sum())", envs.StatusOK, "5\n"},
	}
	for _, st := range steps {
		got := ss.Call(context.Background(), st.input)
		if got.Status != st.status || st.output != "" && got.Output != st.output {
			t.Errorf("%s: Call(%q) = %+v, want %s %q", st.name, st.input, got, st.status, st.output)
		}
	}
	// Another session and plain calls do not see the definitions.
	other := s.Session()
	defer other.Close()
	for name, tool := range map[string]envs.Tool{"other session": other, "sandbox": s} {
		if got := tool.Call(context.Background(), "fmt.Println(x)"); got.Status != envs.StatusError || got.Output != "error: undefined: x" {
			t.Errorf("%s: Call = %+v, want undefined x", name, got)
		}
	}
	ss.Close()
	if got := ss.Call(context.Background(), "fmt.Println(1)"); got.Output != "error: session closed" {
		t.Errorf("call after Close = %+v, want session closed", got)
	}
}

// TestStatelessSession proves that without Config.Stateful a session's
// calls start fresh.
func TestStatelessSession(t *testing.T) {
	s := newSandbox(t, DefaultConfig())
	ss := s.Session()
	defer ss.Close()
	ss.Call(context.Background(), "x := 1")
	if got := ss.Call(context.Background(), "fmt.Println(x)"); got.Output != "error: undefined: x" {
		t.Errorf("Call = %+v, want undefined x", got)
	}
}

// TestConcurrentSessions runs many stateful sessions at once on two
// workers; each keeps its own value.
func TestConcurrentSessions(t *testing.T) {
	s := newSandbox(t, Config{Timeout: 2 * time.Second, MaxOutput: 4096, Stateful: true, Workers: 2})
	const n = 12
	errs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ss := s.Session()
			defer ss.Close()
			ss.Call(context.Background(), fmt.Sprintf("v := %d", i))
			for k := range 3 {
				ss.Call(context.Background(), "v *= 2")
				if got, want := ss.Call(context.Background(), "fmt.Println(v)"), fmt.Sprintf("%d\n", i<<(k+1)); got.Output != want {
					errs[i] = fmt.Sprintf("session %d step %d: %+v, want %q", i, k, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
}

// TestSessionAfterTimeout shows a session losing its definitions when its
// worker is replaced, and carrying on.
func TestSessionAfterTimeout(t *testing.T) {
	s := newSandbox(t, Config{Timeout: 300 * time.Millisecond, MaxOutput: 4096, Stateful: true, Workers: 1})
	ss := s.Session()
	defer ss.Close()
	steps := []struct{ input, output string }{
		{"y := 5", EmptyOutput},
		{"import \"math/big\"\nx := big.NewInt(3)\nx.Exp(x, big.NewInt(1<<40), nil)", "error: timeout after 300ms"},
		{"fmt.Println(y)", "error: undefined: y"},
		{"y := 6\nfmt.Println(y)", "6\n"},
	}
	for i, st := range steps {
		if got := ss.Call(context.Background(), st.input); got.Output != st.output {
			t.Errorf("step %d: Call(%q) = %+v, want %q", i, st.input, got, st.output)
		}
	}
}
