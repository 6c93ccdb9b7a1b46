package arith

import (
	"math/rand"
	"testing"
)

// TestProblemChain: the running values, answer, plan and step snippets of
// one-, two- and three-step problems.
func TestChainProblemChain(t *testing.T) {
	cases := []struct {
		p      Chain
		values []int
		expr   string
		code   []string // StepCode(i, values[i-1]), A for the first
		id     string
		prompt string
	}{
		{Chain{1, 482, 37, 0, 0, 0, 0}, []int{17834}, "482 * 37",
			[]string{"fmt.Println(482 * 37)"}, "multistep-s1-482-37-0-0-t0-n0",
			"37 boxes hold 482 nails each. How many nails?"},
		{Chain{2, 482, 37, 64, 0, 1, 2}, []int{17834, 42}, "482 * 37 % 64",
			[]string{"fmt.Println(482 * 37)", "fmt.Println(17834 % 64)"}, "multistep-s2-482-37-64-0-t1-n2",
			"Each of 37 bags has 482 beads. In rows of 64, how many spare?"},
		{Chain{3, 482, 37, 64, 25, 0, 5}, []int{17834, 42, 67}, "482 * 37 % 64 + 25",
			[]string{"fmt.Println(482 * 37)", "fmt.Println(17834 % 64)", "fmt.Println(42 + 25)"}, "multistep-s3-482-37-64-25-t0-n5",
			"37 boxes hold 482 cards each. Packed 64 per bag, the rest plus 25 is?"},
	}
	for i, c := range cases {
		got := c.p.Values()
		if len(got) != len(c.values) {
			t.Fatalf("case %d: values %v, want %v", i, got, c.values)
		}
		for j := range got {
			if got[j] != c.values[j] {
				t.Errorf("case %d: values %v, want %v", i, got, c.values)
			}
		}
		if a := c.p.Answer(); a != c.values[len(c.values)-1] {
			t.Errorf("case %d: answer %d", i, a)
		}
		if e := c.p.Expression(); e != c.expr {
			t.Errorf("case %d: expression %q, want %q", i, e, c.expr)
		}
		v := c.p.A
		for j, want := range c.code {
			if code := c.p.StepCode(j, v); code != want {
				t.Errorf("case %d step %d: code %q, want %q", i, j, code, want)
			}
			v = c.values[j]
		}
		if id := c.p.ID(); id != c.id {
			t.Errorf("case %d: ID %q, want %q", i, id, c.id)
		}
		if pr := c.p.Prompt(); pr != c.prompt {
			t.Errorf("case %d: prompt %q, want %q", i, pr, c.prompt)
		}
		if n, ok := Steps(c.p.Task()); !ok || n != c.p.Steps {
			t.Errorf("case %d: Steps = %d, %v", i, n, ok)
		}
	}
}

// TestRandomIsWellFormed: drawn problems round-trip through their ID,
// respect the digit bounds and use exactly the operands of their steps.
func TestChainRandomIsWellFormed(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, d := range []Digits{{1, 1}, {2, 3}, {4, 4}} {
		for i := 0; i < 3000; i++ {
			n := 1 + i%MaxSteps
			p := RandomChain(rng, n, d)
			back, ok := parseChainID(p.ID())
			if !ok || back != p {
				t.Fatalf("%+v: parseChainID(%q) = %+v, %v", p, p.ID(), back, ok)
			}
			if !inDigits(p.A, d.Min, d.Max) {
				t.Fatalf("%+v: A outside digits %+v", p, d)
			}
			if l := len(p.Prompt()); l < 35 || l > 90 {
				t.Fatalf("%+v: prompt of %d bytes: %q", p, l, p.Prompt())
			}
		}
	}
}

// TestParseIDRejects: malformed or out-of-range IDs are not problems.
func TestChainParseIDRejects(t *testing.T) {
	for _, id := range []string{
		"", "arith-mul-482-37-t0-n0", "multistep-s4-482-37-64-25-t0-n0",
		"multistep-s0-482-37-0-0-t0-n0", "multistep-s1-482-37-64-0-t0-n0", // C given to a one-step problem
		"multistep-s2-482-37-10-0-t0-n0", // C below 11
		"multistep-s3-482-37-64-0-t0-n0", // D missing
		"multistep-s1-482-137-0-0-t0-n0", "multistep-s1-0482-37-0-0-t0-n0",
		"multistep-s1-482-37-0-0-t2-n0", "multistep-s1-482-37-0-0-t0-n6", "multistep-s1-482-37-0-0-x0-n0",
	} {
		if p, ok := parseChainID(id); ok {
			t.Errorf("parseChainID(%q) = %+v, want rejected", id, p)
		}
	}
}
