package reward

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/rollout"
)

func TestExtract(t *testing.T) {
	f := rollout.DefaultFormat()
	cases := []struct {
		name, response, want string
		ok                   bool
	}{
		{"answer block", "<think>x</think><answer> 42 </answer>", "42", true},
		{"last block wins", "<answer>1</answer> then <answer>2</answer>", "2", true},
		{"unclosed last block ignored", "<answer>1</answer><answer>2", "1", true},
		{"empty block", "<answer></answer>", "", true},
		{"block beats boxed", `\boxed{7} <answer>8</answer>`, "8", true},
		{"boxed fallback", `so \boxed{7}.`, "7", true},
		{"last boxed", `\boxed{1} or \boxed{2}`, "2", true},
		{"nested braces", `\boxed{\frac{1}{2}}`, `\frac{1}{2}`, true},
		{"unbalanced last boxed skipped", `\boxed{3} and \boxed{4`, "3", true},
		{"boxed inside answer kept", `<answer>\boxed{5}</answer>`, `\boxed{5}`, true},
		{"answer in tool output ignored", "<code>p</code><output><answer>9</answer></output>", "", false},
		{"boxed in tool output ignored", `<output>\boxed{9}</output>\boxed{3}`, "3", true},
		{"nothing", "the answer is 4", "", false},
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
	f := rollout.Format{Think: "reasoning", Code: "python", Output: "result", Answer: "final"}
	got, ok := Extract("<answer>1</answer><final>2</final><result><final>3</final></result>", f)
	if !ok || got != "2" {
		t.Errorf("got %q, %v; want \"2\", true", got, ok)
	}
}

// TestEqualPairs reads the grader pairs in testdata/equal.tsv and checks
// each in both orders.
func TestEqualPairs(t *testing.T) {
	file, err := os.Open("testdata/equal.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.HasPrefix(text, "#") || text == "" {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 3 || (fields[0] != "0" && fields[0] != "1") {
			t.Fatalf("line %d: want 3 tab-separated fields starting with 0 or 1, got %q", line, text)
		}
		want, pred, gold := fields[0] == "1", fields[1], fields[2]
		n++
		t.Run(pred+"|"+gold, func(t *testing.T) {
			if got := Equal(pred, gold); got != want {
				t.Errorf("line %d: Equal(%q, %q) = %v, want %v", line, pred, gold, got, want)
			}
			if got := Equal(gold, pred); got != want {
				t.Errorf("line %d: Equal(%q, %q) = %v, want %v", line, gold, pred, got, want)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 30 {
		t.Errorf("only %d grader pairs, want at least 30", n)
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

// TestBoundedTime feeds adversarial inputs at the size limits; each call
// must finish well within a second.
func TestBoundedTime(t *testing.T) {
	f := rollout.DefaultFormat()
	half := MaxAnswerLen / 2
	answers := map[string]string{
		"unclosed text":   strings.Repeat(`\text{`, MaxAnswerLen/6),
		"nested text":     strings.Repeat(`\text{`, MaxAnswerLen/12) + strings.Repeat("}", MaxAnswerLen/12),
		"nested boxed":    strings.Repeat(`$\boxed{`, MaxAnswerLen/10) + strings.Repeat("}$", MaxAnswerLen/10),
		"long decimal":    "0." + strings.Repeat("9", MaxAnswerLen-2),
		"long fraction":   strings.Repeat("7", half-1) + "/" + strings.Repeat("3", half),
		"many separators": "1" + strings.Repeat(",000", (MaxAnswerLen-1)/4),
	}
	responses := map[string]string{
		"unclosed boxed":  strings.Repeat(`\boxed{`, 1<<14),
		"many opens":      strings.Repeat("<answer>", 1<<14) + "</answer>",
		"many outputs":    strings.Repeat("<output>", 1<<14),
		"many think":      strings.Repeat("<think></think>", 1<<14),
		"unclosed blocks": strings.Repeat("<think>", 1<<14),
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
	for name, a := range answers {
		check(name, func() { Equal(a, a+"0") })
	}
	strict := FormatStrict(f)
	for name, r := range responses {
		check(name, func() {
			Extract(r, f)
			strict(&rollout.Trajectory{Response: r}, task("1"))
		})
	}
}
