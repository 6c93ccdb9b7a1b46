package mathgrade

import (
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/rollout/format"
)

func TestExtractART(t *testing.T) {
	f := format.DefaultFormat()
	f.Style = format.StyleART
	custom := f
	custom.Answer = "final"
	cases := []struct {
		name     string
		f        format.Format
		response string
		want     string
		ok       bool
	}{
		{"answer line", f, "plan\n[code] x\n#1: 133\nAns: 133\n", "133", true},
		{"answer line at the end", f, "Ans:  7 ", "7", true},
		{"last answer line wins", f, "Ans: 1\nAns: 2\n", "2", true},
		{"boxed inside the line", f, `Ans: so $\boxed{12}$` + "\n", "12", true},
		{"answer is inside the line", f, "Ans: the answer is 5.\n", "5", true},
		{"eos text after the answer", f, "Ans: 42<|im_end|>", "42", true},
		{"empty answer line", f, "Ans:\n", "", true},
		{"answer in a result is ignored", f, "[code] x\n#1: Ans: 9\n", "", false},
		{"boxed in a result is ignored", f, "[code] x\n#1: \\boxed{9}\nthe answer is 8\n", "8", true},
		{"fallback to boxed", f, "so \\boxed{3}\n", "3", true},
		{"tag block is text in art", f, "<answer>4</answer>", "", false},
		{"indented label is text", f, "  Ans: 4\n", "", false},
		{"custom label", custom, "final: 6\nAns: 5\n", "6", true},
		{"nothing", f, "plan\n[code] x\n#1: 1\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Extract(c.response, c.f)
			if got != c.want || ok != c.ok {
				t.Errorf("Extract(%q) = %q, %v; want %q, %v", c.response, got, ok, c.want, c.ok)
			}
		})
	}
}

// TestExtractARTLinear bounds the time of a long art-style response: many
// lines of reasoning and results must not make Extract quadratic.
func TestExtractARTLinear(t *testing.T) {
	f := format.DefaultFormat()
	f.Style = format.StyleART
	long := strings.Repeat("thinking more\n", 20000) + strings.Repeat("#1: x\n", 20000) + "Ans: 5\n"
	start := time.Now()
	if got, ok := Extract(long, f); !ok || got != "5" {
		t.Fatalf("got %q, %v", got, ok)
	}
	if d := time.Since(start); d > slowCall {
		t.Errorf("Extract of %d bytes took %v", len(long), d)
	}
}
