package mathgrade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/rollout/format"
)

func TestExtract(t *testing.T) {
	f := format.DefaultFormat()
	cases := []struct {
		name, response, want string
		ok                   bool
	}{
		{"answer block", "<think>x</think><answer> 42 </answer>", "42", true},
		{"last block wins", "<answer>1</answer> then <answer>2</answer>", "2", true},
		{"unclosed last block ignored", "<answer>1</answer><answer>2", "1", true},
		{"empty block", "<answer></answer>", "", true},
		{"block beats boxed", `\boxed{7} <answer>8</answer>`, "8", true},
		{"boxed inside block", `<answer>so \boxed{5}.</answer>`, "5", true},
		{"answer is inside block", `<answer>The answer is $6$.</answer>`, "6", true},
		{"boxed fallback", `so \boxed{7}.`, "7", true},
		{"last boxed", `\boxed{1}, then \boxed{2}`, "2", true},
		{"nested braces", `\boxed{\frac{1}{2}}`, `\frac{1}{2}`, true},
		{"deeply nested braces", `\boxed{\left\{ \frac{\sqrt{2}}{2} \right\}}`, `\left\{ \frac{\sqrt{2}}{2} \right\}`, true},
		{"unbalanced last boxed skipped", `\boxed{3} and \boxed{4`, "3", true},
		{"space before brace", `\boxed {9}`, "9", true},
		{"boxed token", `so $\boxed 5$.`, "5", true},
		{"boxed token at end", `hence \boxed 12`, "12", true},
		{"boxed without argument", `\boxed`, "", false},
		{"boxed command only", `\boxedx`, "", false},
		{"boxed token in braces", `\textbf{\boxed 5}.`, "5", true},
		{"boxed token in a group", `{\boxed 5}`, "5", true},
		{"boxed token with braces", `\boxed {\frac12}`, `\frac12`, true},
		{"boxed token with its own group", `so \boxed \frac{1}{2}.`, `\frac{1}{2}.`, true},
		{"boxed in text", `\text{Answer: \boxed{12}}`, "12", true},
		{"boxed in a group", `$\text{Final: }{\boxed{5}}$`, "5", true},
		{"boxed in bold math", `\textbf{Final answer: $\boxed{12}$}`, "12", true},
		{"boxed in boxed", `\boxed{\boxed{5}}`, "5", true},
		{"boxed in an equation box", `\boxed{m+n=\boxed{104}}`, "104", true},
		{"escaped braces", `\boxed{\{1,2\}}`, `\{1,2\}`, true},
		{"escaped open brace only", `\boxed{\{1,2}`, `\{1,2`, true},
		{"escaped close brace only", `\boxed{3\}}`, `3\}`, true},
		{"escaped brace in text", `\boxed{\text{\{}a}`, `\text{\{}a`, true},
		{"row break before brace", `\boxed{\begin{pmatrix}1\\{2}\end{pmatrix}}`, `\begin{pmatrix}1\\{2}\end{pmatrix}`, true},
		{"fbox", `\fbox{10}`, "10", true},
		{"fbox after boxed", `\boxed{1} then \fbox{2}`, "2", true},
		{"boxed after fbox", `\fbox{1} then \boxed{2}`, "2", true},
		{"answer in tool output ignored", "<code>p</code><output><answer>9</answer></output>", "", false},
		{"boxed in tool output ignored", `<output>\boxed{9}</output>\boxed{3}`, "3", true},
		{"the answer is", "so the answer is 4", "4", true},
		{"The final answer is", "The final answer is $\\frac{1}{2}$. I hope it is correct.", `\frac{1}{2}`, true},
		{"answer is display math", "the answer is $$x=3$$ indeed", "x=3", true},
		{"answer is up to full stop", "The answer is 12. Next we check.", "12", true},
		{"answer is with colon", "ANSWER IS: 7\nmore text", "7", true},
		{"last answer is wins", "the answer is 1, no, the answer is 2.", "2", true},
		{"answer is with nothing", "the answer is", "", false},
		{"answer is bold", "The answer is **15**.", "15", true},
		{"boxed beats answer is", `the answer is 4, \boxed{5}`, "5", true},
		{"nothing", "we computed 4", "", false},
		{"close before open", "</answer>4<answer>", "", false},
		{"empty response", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Extract(c.response, f)
			if got != c.want || ok != c.ok {
				t.Errorf("Extract(%q) = %q, %v; want %q, %v", c.response, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestExtractCustomTags(t *testing.T) {
	f := format.Format{Think: "reasoning", Code: "python", Output: "result", Answer: "final"}
	got, ok := Extract("<answer>1</answer><final>2</final><result><final>3</final></result>", f)
	if !ok || got != "2" {
		t.Errorf("got %q, %v; want \"2\", true", got, ok)
	}
}

// pairFiles are the files of grader pairs: testdata/equal.tsv and one
// file per form, testdata/equal_*.tsv.
func pairFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "equal*.tsv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no grader pairs under testdata: %v", err)
	}
	return files
}

// gradePair is one line of a pair file.
type gradePair struct {
	file       string
	line       int
	want       bool
	oneWay     bool // equal as written, ReasonUnnamed with pred and gold swapped
	pred, gold string
}

// readPairs reads a pair file: lines of want, pred and gold,
// tab-separated; lines starting with # are comments. want is 1 (equal in
// both orders), 0 (unequal in both orders) or > (equal with pred as the
// prediction, and rejected with ReasonUnnamed when gold is: pred names
// the quantity gold gives, m+n = 104 for 104).
func readPairs(t testing.TB, path string) []gradePair {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []gradePair
	for i, text := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(text, "#") || text == "" {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 || (fields[0] != "0" && fields[0] != "1" && fields[0] != ">") {
			t.Fatalf("%s:%d: want 3 tab-separated fields starting with 0, 1 or >, got %q", path, i+1, text)
		}
		pairs = append(pairs, gradePair{filepath.Base(path), i + 1, fields[0] != "0", fields[0] == ">", fields[1], fields[2]})
	}
	return pairs
}

// TestEqualPairs reads the grader pairs of every pair file and checks each
// in both orders.
func TestEqualPairs(t *testing.T) {
	n := 0
	for _, path := range pairFiles(t) {
		pairs := readPairs(t, path)
		n += len(pairs)
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, p := range pairs {
				t.Run(p.pred+"|"+p.gold, func(t *testing.T) {
					if got := Equal(p.pred, p.gold); got != p.want {
						t.Errorf("%s:%d: Equal(%q, %q) = %v, want %v", p.file, p.line, p.pred, p.gold, got, p.want)
					}
					if got := Equal(p.gold, p.pred); got != (p.want && !p.oneWay) {
						t.Errorf("%s:%d: Equal(%q, %q) = %v, want %v", p.file, p.line, p.gold, p.pred, got, p.want && !p.oneWay)
					}
				})
			}
		})
	}
	if n < 600 {
		t.Errorf("only %d grader pairs, want at least 600", n)
	}
}

func TestEqualTooLong(t *testing.T) {
	long := strings.Repeat("1", MaxAnswerLen+1)
	if Equal(long, long) {
		t.Error("an answer over MaxAnswerLen must not be equal")
	}
	ok := strings.Repeat("1", MaxAnswerLen)
	if !Equal(ok, ok) {
		t.Error("an answer of MaxAnswerLen bytes must equal itself")
	}
}

// TestEqualBudget checks that a comparison too costly for its budget
// answers false, while the same kind of comparison on fewer items succeeds.
func TestEqualBudget(t *testing.T) {
	sums := func(n int, format string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[n-1-i] = fmt.Sprintf(format, i+1)
		}
		return strings.Join(parts, ",")
	}
	cases := []struct {
		name  string
		items int
		want  bool
	}{
		{"within budget", 20, true},
		{"over budget", 250, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pred, gold := sums(c.items, "%d+x"), sums(c.items, "x+%d")
			start := time.Now()
			if got := Equal(pred, gold); got != c.want {
				t.Errorf("Equal over %d symbolic items = %v, want %v", c.items, got, c.want)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// adversarialAnswers are answers at the size limit built to make the grader
// slow: deep nesting, huge numbers, many items, many evaluations.
func adversarialAnswers() map[string]string {
	const n = MaxAnswerLen
	half := n / 2
	items := func(f func(i int) string, count int) string {
		parts := make([]string, count)
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, ",")
	}
	return map[string]string{
		"unclosed text":   strings.Repeat(`\text{`, n/6),
		"nested text":     strings.Repeat(`\text{`, n/12) + strings.Repeat("}", n/12),
		"nested boxed":    strings.Repeat(`$\boxed{`, n/10) + strings.Repeat("}$", n/10),
		"long decimal":    "0." + strings.Repeat("9", n-2),
		"long fraction":   strings.Repeat("7", half-1) + "/" + strings.Repeat("3", half),
		"many separators": "1" + strings.Repeat(",000", (n-1)/4),
		"nested parens":   strings.Repeat("(", half) + "x" + strings.Repeat(")", half-1),
		"nested sqrt":     strings.Repeat(`\sqrt{`, n/7) + "2" + strings.Repeat("}", n/7),
		"nested frac":     strings.Repeat(`\frac{1}{`, n/10) + "2" + strings.Repeat("}", n/10),
		"power tower":     strings.Repeat("9^{", n/4-1) + "9" + strings.Repeat("}", n/4-1),
		"factorials":      "1000" + strings.Repeat("!", n-4),
		"huge powers":     strings.Repeat("7^{999}*", n/8),
		"many products":   strings.Repeat("123456789*", n/10),
		"many variables":  strings.Repeat("x_{1}y_{2}z+", n/12),
		"many functions":  strings.Repeat(`\sin\cos\tan `, n/14) + "x",
		"many pm":         strings.Repeat(`1\pm`, n/4),
		"set of numbers":  items(func(i int) string { return string(rune('0' + i%10)) }, n/2),
		"set of sums":     items(func(i int) string { return "x+" + string(rune('0'+i%10)) }, n/4),
		"set of tuples":   items(func(i int) string { return "(x,1)" }, n/6),
		"nested sets":     strings.Repeat(`\{1,`, n/6) + strings.Repeat(`\}`, n/6),
		"big matrix":      `\begin{pmatrix}` + strings.Repeat("x&", n/3) + `\end{pmatrix}`,
		"many rows":       `\begin{pmatrix}` + strings.Repeat(`x\\`, n/4) + `\end{pmatrix}`,
		"union":           strings.Repeat(`(0,x)\cup`, n/10) + "(0,1)",
		"equation":        strings.Repeat("x+", n/2-2) + "=1",
		"bars":            strings.Repeat("|x", n/2),
		"unit words":      strings.Repeat("5cm", n/3),
		"mixed numbers":   strings.Repeat(`1\frac{1}{2}`, n/12),
		"binomials":       strings.Repeat(`\binom{9999}{5000}`, n/18),
	}
}

// TestBoundedTime feeds adversarial inputs at the size limits; each call
// must finish well within a second. (reward's TestFormatStrictBoundedTime
// feeds the same responses to the strict format reward.)
func TestBoundedTime(t *testing.T) {
	f := format.DefaultFormat()
	responses := map[string]string{
		"unclosed boxed":  strings.Repeat(`\boxed{`, 1<<14),
		"boxed tokens":    strings.Repeat(`\boxed `, 1<<14),
		"fbox and boxed":  strings.Repeat(`\fbox{\boxed{`, 1<<13),
		"many opens":      strings.Repeat("<answer>", 1<<14) + "</answer>",
		"many outputs":    strings.Repeat("<output>", 1<<14),
		"many think":      strings.Repeat("<think></think>", 1<<14),
		"unclosed blocks": strings.Repeat("<think>", 1<<14),
		"answer is":       strings.Repeat("answer is ", 1<<14),
		"backslashes":     strings.Repeat(`\`, 1<<16),
	}
	check := func(name string, fn func()) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			fn()
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	for name, a := range adversarialAnswers() {
		if len(a) > MaxAnswerLen {
			t.Fatalf("%s: %d bytes, over MaxAnswerLen", name, len(a))
		}
		check(name, func() { Equal(a, a+"0"); Equal(a, strings.Replace(a, "1", "2", 1)) })
	}
	for name, r := range responses {
		check(name, func() { Extract(r, f) })
	}
}

func ExampleExtract() {
	f := format.DefaultFormat()
	for _, r := range []string{
		`<think>6 times 7</think><answer>$\boxed{42}$</answer>`,
		`so the roots are $\boxed{1 \pm \sqrt{2}}$.`,
		`Final Answer: The final answer is $\frac{1}{2}$. I hope it is correct.`,
	} {
		a, ok := Extract(r, f)
		fmt.Printf("%q %v\n", a, ok)
	}
	// Output:
	// "42" true
	// "1 \\pm \\sqrt{2}" true
	// "\\frac{1}{2}" true
}

func ExampleEqual_rules() {
	pairs := [][2]string{
		{`\sqrt{12}`, `2\sqrt{3}`}, // roots
		{`50\%`, `0.5`},            // percentages
		{`x = 5`, `5`},             // named values
		{`(-\infty, 2) \cup (3, \infty)`, `(3,\infty)\cup(-\infty,2)`}, // unions in any order
		{`(3,4]`, `(3,4)`}, // interval ends
		{`1 \pm \sqrt{19}`, `1-\sqrt{19}, 1+\sqrt{19}`}, // sets of solutions
		{`\frac{n(n+1)}{2}`, `\binom{n+1}{2}`},          // symbolic, at random points
	}
	for _, p := range pairs {
		fmt.Println(Equal(p[0], p[1]))
	}
	// Output:
	// true
	// true
	// true
	// true
	// false
	// true
	// true
}
