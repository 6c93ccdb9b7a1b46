package mathgrade

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGradeReasons checks the verdict and its reason for each reason, in
// both argument orders.
func TestGradeReasons(t *testing.T) {
	symbolic := func(n int, format string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[n-1-i] = fmt.Sprintf(format, i+1)
		}
		return strings.Join(parts, ",")
	}
	cases := []struct {
		name, pred, gold string
		want             Verdict
	}{
		{"same spelling", `\boxed{42}`, "42", Verdict{true, ReasonSame}},
		{"same after spacing", `\left( 3, \frac{\pi}{2} \right)`, `(3,\frac{\pi}{2})`, Verdict{true, ReasonSame}},
		{"equivalent number", "0.5", `\frac12`, Verdict{true, ReasonEquivalent}},
		{"equivalent inequality", "x > 3", "3 < x", Verdict{true, ReasonEquivalent}},
		{"mismatch number", "42", "43", Verdict{false, ReasonMismatch}},
		{"mismatch expression", "2x+1", "2x-1", Verdict{false, ReasonMismatch}},
		{"mismatch base", "101_2", "101_3", Verdict{false, ReasonMismatch}},
		{"mismatch tuple item", "(1,2)", "(1,3)", Verdict{false, ReasonMismatch}},
		{"mismatch list", "1,2", "1,3", Verdict{false, ReasonMismatch}},
		{"swapped pair", "(1,2)", "(2,1)", Verdict{false, ReasonOrder}},
		{"swapped triple", "(6,31,-1)", "(-1,31,6)", Verdict{false, ReasonOrder}},
		{"swapped in a set of pairs", "(1,2),(3,4)", "(2,1),(4,3)", Verdict{false, ReasonOrder}},
		{"swapped names", "(x,y)=(1,2)", "(y,x)=(1,2)", Verdict{false, ReasonOrder}},
		{"swapped assignment", "x=1, y=2", "(2,1)", Verdict{false, ReasonOrder}},
		{"tuple against list", "(1,2)", "1,2", Verdict{false, ReasonShape}},
		{"tuple lengths", "(1,2)", "(1,2,3)", Verdict{false, ReasonShape}},
		{"interval brackets", "(3,4]", "(3,4)", Verdict{false, ReasonShape}},
		{"matrix against number", `\begin{pmatrix}1&2\end{pmatrix}`, "3", Verdict{false, ReasonShape}},
		{"named values", "x = 5", "y = 5", Verdict{false, ReasonName}},
		{"named tuples", "(x,y)=(1,2)", "(a,b)=(1,2)", Verdict{false, ReasonName}},
		{"named inequalities", "x > 3", "y > 3", Verdict{false, ReasonName}},
		{"unbalanced fraction", `\frac{1}{`, `\frac{1}{2}`, Verdict{false, ReasonParse}},
		{"unknown command", `\foo{3}`, "3", Verdict{false, ReasonParse}},
		{"words differ", `\text{even}`, `\text{odd}`, Verdict{false, ReasonMismatch}},
		{"over budget", symbolic(250, "%d+x"), symbolic(250, "x+%d"), Verdict{false, ReasonBudget}},
		{"too long", strings.Repeat("1", MaxAnswerLen+1), "1", Verdict{false, ReasonTooLong}},
		{"empty pred", "$$", "1", Verdict{false, ReasonEmpty}},
		{"empty gold", "1", `\boxed{}`, Verdict{false, ReasonEmpty}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Grade(c.pred, c.gold); got != c.want {
				t.Errorf("Grade(%.40q, %.40q) = %+v, want %+v", c.pred, c.gold, got, c.want)
			}
			if got := Grade(c.gold, c.pred); got != c.want {
				t.Errorf("Grade(%.40q, %.40q) = %+v, want %+v", c.gold, c.pred, got, c.want)
			}
		})
	}
}

// TestGradeDirection checks the rule that is not symmetric: a prediction
// may name the quantity a bare gold gives, a bare prediction does not
// state the equation a gold names. Each case is graded as written and
// with the answers swapped.
func TestGradeDirection(t *testing.T) {
	eq, unnamed := Verdict{true, ReasonEquivalent}, Verdict{false, ReasonUnnamed}
	cases := []struct {
		name, pred, gold string
		want, swapped    Verdict
	}{
		{"equation gold, bare prediction", "2", "3x - y = 2", unnamed, eq},
		{"sum named", "p+q+r = 19", "19", eq, unnamed},
		{"product named", `uv = \frac{3}{2}`, "1.5", eq, unnamed},
		{"named on the right", "-7 = a-b", "-7", eq, unnamed},
		{"boxed value of an equation", `5a - 2b = \boxed{8}`, "8", eq, unnamed},
		{"in a set of one", `\{4\}`, "s+t=4", unnamed, eq},
		{"wrong value either way", "9", "3x - y = 2", Verdict{false, ReasonMismatch}, Verdict{false, ReasonMismatch}},
		{"variable names a value both ways", "y = 6", "6", eq, eq},
		{"function names a value both ways", "h(t) = 6", "6", eq, eq},
		{"angle names a value both ways", `\angle PQR = 40`, "40", eq, eq},
		{"equation against equation", "6x - 2y = 4", "3x - y = 2", eq, eq},
		{"solved for a variable", "y = 3x - 2", "3x - y = 2", eq, eq},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Grade(c.pred, c.gold); got != c.want {
				t.Errorf("Grade(%q, %q) = %+v, want %+v", c.pred, c.gold, got, c.want)
			}
			if got := Grade(c.gold, c.pred); got != c.swapped {
				t.Errorf("Grade(%q, %q) = %+v, want %+v", c.gold, c.pred, got, c.swapped)
			}
		})
	}
}

// TestGradeConsistent checks, on every pair of the pair files, that Grade
// is symmetric but for the pairs marked one-way (rejected with
// ReasonUnnamed when swapped), that Equal is Grade's Equal, and that a
// verdict's reason agrees with it: same or equivalent exactly when equal.
func TestGradeConsistent(t *testing.T) {
	for _, path := range pairFiles(t) {
		for _, p := range readPairs(t, path) {
			v, w := Grade(p.pred, p.gold), Grade(p.gold, p.pred)
			if p.oneWay {
				if !v.Equal || w != (Verdict{Reason: ReasonUnnamed}) {
					t.Errorf("%s:%d: Grade(%q, %q) = %+v, swapped %+v; want equal one way, %s the other", p.file, p.line, p.pred, p.gold, v, w, ReasonUnnamed)
				}
				continue
			}
			if v != w {
				t.Errorf("%s:%d: Grade(%q, %q) = %+v but swapped %+v", p.file, p.line, p.pred, p.gold, v, w)
			}
			if e := Equal(p.pred, p.gold); e != v.Equal {
				t.Errorf("%s:%d: Equal = %v, Grade = %+v", p.file, p.line, e, v)
			}
			if accepted := v.Reason == ReasonSame || v.Reason == ReasonEquivalent; accepted != v.Equal {
				t.Errorf("%s:%d: Grade(%q, %q) = %+v: reason disagrees with the verdict", p.file, p.line, p.pred, p.gold, v)
			}
		}
	}
}

// TestGradeAdversarialRejects checks that answers built to be slow are
// rejected with a reason, and never accepted against a different answer.
func TestGradeAdversarialRejects(t *testing.T) {
	for name, a := range adversarialAnswers() {
		t.Run(name, func(t *testing.T) {
			v := Grade(a, a+"0")
			if v.Equal || v.Reason == "" {
				t.Errorf("Grade(%.30q…, itself+0) = %+v, want a rejection with a reason", a, v)
			}
		})
	}
}

// TestNormalizeForms checks the spellings the normaliser makes canonical
// for the forms it reads.
func TestNormalizeForms(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"degree command", `30^\circ`, "30°"},
		{"degree braces", `30^{\circ}`, "30°"},
		{"degree word", `30\degree`, "30°"},
		{"grouping braces", `1{,}000{,}000`, "1000000"},
		{"grouping braces in a tuple", `(1{,}000, 2)`, "(1000,2)"},
		{"grouping braces before a decimal", `3{,}14`, "3,14"},
		{"grouping bang", `10,\! 080`, "10080"},
		{"thin space", "1\u2009000", "1000"},
		{"narrow no-break space", "1\u202f000", "1000"},
		{"thinspace command", `1\thinspace 000`, "1000"},
		{"list space kept", "1, 234", "1, 234"},
		{"tuple space dropped", "(1, 2)", "(1,2)"},
		{"inner box", `m+n=\boxed{104}`, "m+n=104"},
		{"or", `\lor`, "∨"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := normalize(c.in); got != c.want {
				t.Errorf("normalize(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func ExampleGrade() {
	for _, p := range [][2]string{
		{"m+n = 104", "104"},
		{"(1,2)", "(2,1)"},
		{"x = 5", "y = 5"},
		{`\frac{1}{`, "1/2"},
		{"2", "3x - y = 2"}, // the gold is an equation; the bare value does not state it
	} {
		fmt.Printf("%+v\n", Grade(p[0], p[1]))
	}
	// Output:
	// {Equal:true Reason:equivalent}
	// {Equal:false Reason:ordered-tuple}
	// {Equal:false Reason:name}
	// {Equal:false Reason:parse}
	// {Equal:false Reason:unnamed}
}

// FuzzGrade checks that Grade is symmetric, reason and all, but where one
// order is rejected with ReasonUnnamed; that its reason agrees with its
// verdict; and that it stays fast on the new forms.
func FuzzGrade(f *testing.F) {
	for _, s := range [][2]string{
		{"m+n = 104", "104"}, {"(x,y)=(1,2)", "(y,x)=(2,1)"}, {"x=1, y=2", "(1,2)"}, {"x > 3", "3 < x"},
		{`1 < x \leq 3`, "(1,3]"}, {`x<1 \text{ or } x>3`, `(-\infty,1)\cup(3,\infty)`}, {`\sin 30^\circ`, "1/2"},
		{"101_2", "101_{(2)}"}, {"1.5e3", "1500"}, {"2e-3", "0.002"}, {`{n \choose k}`, "C(n,k)"}, {"C_5^2", "{}^5C_2"},
		{`(1{,}000, 2)`, "(1000,2)"}, {"1, 234", "1234"}, {"x=1,000", "1000"}, {`2\begin{pmatrix}1\\2\end{pmatrix}`, "(2,4)"},
		{`\angle BEA_{1}=90`, "90"}, {`\overline{AB}=7`, "7"}, {"x²", "x^2"}, {`\boxed{\{1,2}`, `\{1,2`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		start := time.Now()
		v, w := Grade(a, b), Grade(b, a)
		if v != w && v.Reason != ReasonUnnamed && w.Reason != ReasonUnnamed {
			t.Errorf("Grade(%q, %q) = %+v but swapped %+v", a, b, v, w)
		}
		if accepted := v.Reason == ReasonSame || v.Reason == ReasonEquivalent; accepted != v.Equal || v.Reason == "" {
			t.Errorf("Grade(%q, %q) = %+v: reason disagrees with the verdict", a, b, v)
		}
		if d := time.Since(start); d > 2*slowCall {
			t.Errorf("two comparisons of %q and %q took %v", a, b, d)
		}
	})
}
