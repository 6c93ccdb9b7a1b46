package reward

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

func artFormat() format.Format { f := format.DefaultFormat(); f.Style = format.StyleART; return f }

// TestComponentsART scores hand-written art-style responses with every
// math component.
func TestComponentsART(t *testing.T) {
	f := artFormat()
	const prog = "Multiply.\n[code] fmt.Println(6*7)\n#1: 42\nThe tool says 42.\nAns: 42\n"
	cases := []struct {
		name     string
		response string
		calls    []rollout.Call
		gold     string
		want     scores
	}{
		{"program", prog, []rollout.Call{ok()}, "42", scores{2, 0.5, 0.5, 1}},
		{"wrong answer", prog, []rollout.Call{ok()}, "43", scores{0, 0.5, 0.5, 1}},
		{"labelled call, eos after the answer", "plan\nQ1: [code] fmt.Println(6*7)\n#1: 42\nAns: 42<|endoftext|>", []rollout.Call{ok()}, "42", scores{2, 0.5, 0.5, 1}},
		{"boxed in the answer line", "plan\n[code] x\n#1: 42\nAns: $\\boxed{42.0}$\n", []rollout.Call{ok()}, "42", scores{2, 0.5, 0.5, 1}},
		{"two calls, results of lines", "plan\n[code] x\n#1: a\n#1: b\n[code] y\n#2: 42\nAns: 42\n", []rollout.Call{ok(), ok()}, "42", scores{2, 0.5, 0.5, 1}},
		{"direct answer", "6*7 is 42.\nAns: 42\n", nil, "42", scores{2, 0.25, 0, 0}},
		{"no reasoning first", "[code] x\n#1: 42\nAns: 42\n", []rollout.Call{ok()}, "42", scores{2, 0.375, 0, 1}},
		{"result the policy wrote", "plan\n[code] x\n#2: 42\nAns: 42\n", []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"result without a call", "plan\n#1: 42\nAns: 42\n", nil, "42", scores{2, 0.375, 0, 0}},
		{"text after the answer", prog + "and more\n", []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"two answers, the last wins", "plan\n[code] x\n#1: 41\nAns: 41\nAns: 42\n", []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"empty answer", "plan\n[code] x\n#1: 42\nAns:\n", []rollout.Call{ok()}, "42", scores{0, 0.5, 0, 1}},
		{"answer in a result is the tool's", "plan\n[code] x\n#1: a\n#1: Ans: 42\nthe answer is 41\n", []rollout.Call{ok()}, "42", scores{0, 0.375, 0, 1}},
		{"answer is phrase without a line", "plan\n[code] x\n#1: 42\nSo the answer is 42.", []rollout.Call{ok()}, "42", scores{2, 0.375, 0, 1}},
		{"cut call line", "plan\n[code] fmt.Println(6*", nil, "42", scores{0, 0.125, 0, 0}},
		{"tags are text", "<think>a</think><code>x</code><output>42</output><answer>42</answer>", nil, "42", scores{0, 0.125, 0, 0}},
		{"empty response", "", nil, "42", scores{0, 0, 0, 0}},
	}
	funcs := []struct {
		name string
		fn   Func
		get  func(scores) float64
	}{
		{"answer", Answer(f), func(s scores) float64 { return s.answer }},
		{"format_relaxed", FormatRelaxed(f), func(s scores) float64 { return s.relaxed }},
		{"format_strict", FormatStrict(f), func(s scores) float64 { return s.strict }},
		{"tool_success", ToolSuccess(), func(s scores) float64 { return s.tool }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := &rollout.Trajectory{Response: c.response, Calls: c.calls}
			for _, fn := range funcs {
				got, applies := fn.fn(tr, task(c.gold))
				if want := fn.get(c.want); got != want || !applies {
					t.Errorf("%s = %v, %v; want %v, true", fn.name, got, applies, want)
				}
			}
		})
	}
}

// TestStrictGrammarART checks the art style's strict format against
// T (C O T?)+ A on line sequences written as letters.
func TestStrictGrammarART(t *testing.T) {
	cases := map[string]bool{
		"TCOA": true, "TCOTA": true, "TCOCOA": true, "TCOTCOA": true, "TTCOA": true,
		"": false, "TA": false, "A": false, "TCA": false, "TCOO": false, "TCOAA": false,
		"COA": false, "TCOATA": false, "TCOTCA": false, "TOCA": false, "TCCOA": false, "TCO": false,
	}
	strict := FormatStrict(artFormat())
	for seq, want := range cases {
		t.Run(seq, func(t *testing.T) {
			var b strings.Builder
			calls := 0
			for _, r := range seq {
				switch r {
				case 'T':
					b.WriteString("some thought\n")
				case 'C':
					calls++
					b.WriteString("[code] fmt.Println(1)\n")
				case 'O':
					b.WriteString(artFormat().ResultPrefix(calls) + "1\n\n")
				case 'A':
					b.WriteString("Ans: 1\n")
				}
			}
			got, _ := strict(&rollout.Trajectory{Response: b.String()}, envs.Task{})
			if (got == strictScore) != want {
				t.Errorf("%q scored %v, want accepted=%v", b.String(), got, want)
			}
		})
	}
}
