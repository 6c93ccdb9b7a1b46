package mathgrade

import (
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/rollout/format"
)

// slowCall is far beyond the time one grading call may take.
const slowCall = time.Second

func FuzzEqual(f *testing.F) {
	for _, s := range [][2]string{
		{"42", "42.0"}, {`\frac{1}{2}`, "0.5"}, {"1,234", "1234"}, {`$\boxed{\text{x}}$`, "x"},
		{`\text{\text{`, "}"}, {"1/0", "0/1"}, {"-.5", `-\frac12`}, {"$$", "$"}, {"\xff", "\xff."},
		{`\sqrt{12}`, `2\sqrt3`}, {`(-\infty, 0]`, `(-\infty,0)`}, {`1\pm\sqrt{5}`, `1+\sqrt5,1-\sqrt5`},
		{`\begin{pmatrix}1&2\\3&4\end{pmatrix}`, `(1,2)`}, {`50\%`, "0.5"}, {`x=5`, "5"},
		{`\frac{n(n+1)}{2}`, `\binom{n+1}{2}`}, {`\sin^{-1}x`, `\arcsin x`}, {`2^{2^{2^{2^{2}}}}`, "0"},
		{`\log_{2} 8`, "3"}, {`\{1,2\}\cup(3,4]`, `(3,4]\cup\{2,1\}`}, {`5x-y=0`, `y=5x`},
		{`137 \frac{1}{2}`, "137.5"}, {`10,\!080`, "10080"}, {`30^\circ`, "30"}, {`204_5`, "204"},
		{`|x|!`, `\lfloor x \rfloor`}, {`\sqrt[3]{-8}`, "-2"}, {`e^{i\pi}`, "-1"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		start := time.Now()
		ab := Equal(a, b)
		if ba := Equal(b, a); ab != ba {
			t.Errorf("Equal(%q, %q) = %v but Equal(%q, %q) = %v", a, b, ab, b, a, ba)
		}
		want := len(a) <= MaxAnswerLen && normalize(a) != ""
		if got := Equal(a, a); got != want {
			t.Errorf("Equal(%q, itself) = %v, want %v", a, got, want)
		}
		if d := time.Since(start); d > 3*slowCall {
			t.Errorf("three comparisons of %q and %q took %v", a, b, d)
		}
		for i, n := range normalizers {
			if out := n(a); out != a && len(out) >= len(a) {
				t.Errorf("normalizer %d grew or kept the length of %q: %q", i, a, out)
			}
		}
		if n := normalize(a); normalize(n) != n {
			t.Errorf("normalize is not idempotent on %q: %q then %q", a, n, normalize(n))
		}
	})
}

// FuzzParseExpr feeds raw text to the expression parser and evaluator,
// below the normaliser: no input may panic or run unbounded.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{`\frac12`, `\sqrt[3]{x}`, `\sin^2 x\cos x`, `\log_{2}(n)`, `|x||y|`, `1\frac{1}{2}`,
		`x_{1}^{2}`, `\binom{n}{k}`, `\lfloor n/2\rfloor`, `2^-1`, `((`, `\frac{`, `|`, `π∞√2`, `e^{i π}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > MaxAnswerLen {
			return
		}
		start := time.Now()
		b := &budget{left: stepBudget}
		x, err := parseExpr(s, b)
		if err == nil {
			if x == nil {
				t.Fatalf("parseExpr(%q) gave no expression and no error", s)
			}
			sameExpr(x, x, b)
		}
		if d := time.Since(start); d > slowCall {
			t.Errorf("parsing and evaluating %q took %v", s, d)
		}
	})
}

func FuzzExtract(f *testing.F) {
	for _, s := range [][2]string{
		{"<think>x</think><answer>", "42"}, {`\boxed{\boxed{`, "}"}, {"<output><answer>1</answer>", "</output>"},
		{"</answer><answer>", "<answer>"}, {"", ""}, {`\fbox `, "x"}, {"The answer is $", "$"},
		{`\boxed `, `\boxed{1}`}, {"answer is: ", "3. "},
	} {
		f.Add(s[0], s[1])
	}
	fm := format.DefaultFormat()
	f.Fuzz(func(t *testing.T, prefix, ans string) {
		start := time.Now()
		got, ok := Extract(prefix, fm)
		if ok && got != strings.TrimSpace(got) {
			t.Errorf("Extract(%q) = %q is not trimmed", prefix, got)
		}
		if len(got) > len(prefix) {
			t.Errorf("Extract(%q) = %q is longer than the response", prefix, got)
		}
		if d := time.Since(start); d > slowCall {
			t.Errorf("Extract(%q) took %v", prefix, d)
		}
		if strings.Contains(ans, "<") || strings.Contains(prefix, "<output>") || strings.Contains(ans, `\boxed`) ||
			strings.Contains(ans, `\fbox`) || lastIndexFold(ans, "answer is") >= 0 {
			return
		}
		r := prefix + "<answer>" + ans + "</answer>"
		got, ok = Extract(r, fm)
		if !ok || got != strings.TrimSpace(ans) {
			t.Errorf("Extract(%q) = %q, %v; want %q, true", r, got, ok, strings.TrimSpace(ans))
		}
	})
}
