package toollib

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
)

func TestAugmentSession(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, 2*time.Second)
	a := &Augment{Inner: s, Lib: fixtureDB(t, s), K: 2}
	task := envs.Task{Prompt: "Is 221 a prime number? Also give the sum of its digits."}
	if got := names(a.Retrieved(task)); got != "digitSum isPrime" {
		t.Fatalf("Retrieved = %q, want digitSum and isPrime", got)
	}
	sess := a.OpenSession(task)
	cases := []struct {
		name, input string
		status      envs.Status
		output      string
	}{
		{"uses library tools", "n := 221\nfmt.Println(isPrime(n), digitSum(n))", envs.StatusOK, "false 5\n"},
		{"redefines a library tool", "func isPrime(n int) bool { return true }\nfmt.Println(isPrime(4), digitSum(4))", envs.StatusOK, "true 4\n"},
		{"program runs unchanged", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(1) }", envs.StatusOK, "1\n"},
		{"tool not retrieved", "fmt.Println(gcd(4, 6))", envs.StatusError, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := sess.Call(ctx, c.input)
			if r.Status != c.status || (c.output != "" && r.Output != c.output) {
				t.Errorf("Call = %+v, want status %s output %q", r, c.status, c.output)
			}
		})
	}
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"isPrime": 1, "digitSum": 1, "gcd": 0} {
		if r, _ := a.Lib.ByName(context.Background(), name); r.Uses != want {
			t.Errorf("%s has %d uses, want %d (one per session that called it)", name, r.Uses, want)
		}
	}
	t.Run("no task, no prelude", func(t *testing.T) {
		if r := a.Call(ctx, "fmt.Println(isPrime(7))"); r.Status != envs.StatusError {
			t.Errorf("Call without a session = %+v, want an error", r)
		}
	})
}

func TestAugmentStateful(t *testing.T) {
	cfg := sandbox.DefaultConfig()
	cfg.Stateful, cfg.Workers = true, 1
	s, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := &Augment{Inner: s, Lib: fixtureDB(t, s), K: 1}
	sess := a.OpenSession(envs.Task{Prompt: "prime"})
	defer sess.Close()
	inputs := []struct{ name, input, want string }{
		{"first call", "y := 7\nfmt.Println(isPrime(y))", "true\n"},
		{"prelude again, earlier state kept", "fmt.Println(isPrime(y + 1))", "false\n"},
		{"snippet imports", "import \"sort\"\nx := []int{3, 1}\nsort.Ints(x)\nfmt.Println(x, isPrime(x[1]))", "[1 3] true\n"},
	}
	for _, c := range inputs {
		t.Run(c.name, func(t *testing.T) {
			if r := sess.Call(context.Background(), c.input); r.Status != envs.StatusOK || r.Output != c.want {
				t.Errorf("Call = %+v, want %q", r, c.want)
			}
		})
	}
}

// TestAugmentGrow: a grown tool is pending, so no session retrieves it,
// unless the Augment auto-approves.
func TestAugmentGrow(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, 2*time.Second)
	snippet := `// cube returns x to the third power.
//
//	cube(3) == 27
//	cube(-2) == -8
func cube(x int) int { return x * x * x }

// triple returns three times x.
//
//	triple(2) == 7
func triple(x int) int { return 3 * x }

// isPrime says yes; it must not replace the library's.
//	isPrime(4) == true
func isPrime(n int) bool { return true }

fmt.Println(cube(2), triple(2))`
	cases := []struct {
		name        string
		grow, auto  bool
		input       string
		grown       int
		has         []string
		lacks       []string
		state       State // of cube, when grown
		retrievable bool  // whether a later session retrieves cube
	}{
		{"off", false, false, snippet, 0, nil, []string{"cube", "triple"}, "", false},
		{"failing call", true, false, snippet + "\nundefinedName()", 0, nil, []string{"cube", "triple"}, "", false},
		{"adds passing tools as pending", true, false, snippet, 1, []string{"cube"}, []string{"triple"}, Pending, false},
		{"auto-approve", true, true, snippet, 1, []string{"cube"}, []string{"triple"}, Approved, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lib := fixtureDB(t, s)
			prime, _ := lib.ByName(context.Background(), "isPrime")
			a := &Augment{Inner: s, Lib: lib, K: 1, Grow: c.grow, AutoApprove: c.auto, Run: "runs/x"}
			sess := a.OpenSession(envs.Task{ID: "task-7", Prompt: "cube"})
			sess.Call(ctx, c.input)
			sess.Close()
			if a.Grown() != c.grown || lib.Len() != 4+c.grown {
				t.Errorf("Grown() = %d, Len() = %d; want %d grown", a.Grown(), lib.Len(), c.grown)
			}
			for _, n := range c.has {
				if _, err := lib.ByName(context.Background(), n); err != nil {
					t.Errorf("library lacks %s", n)
				}
			}
			for _, n := range c.lacks {
				if _, err := lib.ByName(context.Background(), n); err == nil {
					t.Errorf("library has %s", n)
				}
			}
			if again, _ := lib.ByName(context.Background(), "isPrime"); again.Tool.Source != prime.Tool.Source {
				t.Error("growth replaced a library tool")
			}
			if c.grown == 0 {
				return
			}
			cube, _ := lib.ByName(context.Background(), "cube")
			if want := (Provenance{Task: "task-7", Run: "runs/x", Source: "grow"}); cube.State != c.state || cube.Provenance != want {
				t.Errorf("grown cube: state %s, provenance %+v; want %s, %+v", cube.State, cube.Provenance, c.state, want)
			}
			got := names(a.Retrieved(envs.Task{Prompt: "cube of a number"}))
			r := a.OpenSession(envs.Task{Prompt: "cube of a number"}).Call(ctx, "fmt.Println(cube(3))")
			if (got == "cube") != c.retrievable || (r.Status == envs.StatusOK) != c.retrievable {
				t.Errorf("retrieved %q and a call of cube gave %+v; want it retrievable and callable: %v", got, r, c.retrievable)
			}
		})
	}
}

// TestAugmentConcurrent runs sessions of a growing Augment at once; run
// with -race it checks the locking.
func TestAugmentConcurrent(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, 2*time.Second)
	a := &Augment{Inner: s, Lib: fixtureDB(t, s), K: 3, Grow: true}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			sess := a.OpenSession(envs.Task{Prompt: "binomial coefficient"})
			defer sess.Close()
			r := sess.Call(ctx, "// inc adds one.\n//\tinc(1) == 2\nfunc inc(x int) int { return x + 1 }\nfmt.Println(binomial(4, 2) + inc(0))")
			if r.Status != envs.StatusOK || r.Output != "7\n" {
				t.Errorf("session %d: %+v", i, r)
			}
		})
	}
	wg.Wait()
	if a.Grown() != 1 || a.Lib.Len() != 5 || a.Err() != nil {
		t.Errorf("Grown() = %d, Len() = %d, Err() = %v; want inc added once", a.Grown(), a.Lib.Len(), a.Err())
	}
	if b, _ := a.Lib.ByName(context.Background(), "binomial"); b.Uses != 4 {
		t.Errorf("binomial has %d uses, want one per session", b.Uses)
	}
}

func TestAugmentStatelessInnerTool(t *testing.T) {
	// An Inner that is not a SessionTool is called directly.
	inner := recorder{}
	a := &Augment{Inner: &inner, Lib: fixtureDB(t, newSandbox(t, 2*time.Second)), K: 1}
	sess := a.OpenSession(envs.Task{Prompt: "greatest common divisor"})
	sess.Call(context.Background(), "fmt.Println(gcd(4, 6))")
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if want := fixture(t, "gcd").Source + "\n\nfmt.Println(gcd(4, 6))"; inner.input != want {
		t.Errorf("inner got\n%s\nwant\n%s", inner.input, want)
	}
}

// recorder is a Tool that keeps its last input.
type recorder struct{ input string }

func (r *recorder) Call(_ context.Context, input string) envs.Result {
	r.input = input
	return envs.Result{Status: envs.StatusOK, Output: "ok\n"}
}

func names(ts []Tool) string {
	var s string
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += t.Name
	}
	return s
}
