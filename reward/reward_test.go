package reward

import (
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

func task(answer string) envs.Task {
	return envs.Task{ID: "t", Prompt: "What is 6*7?", Answer: answer}
}

func ok() rollout.Call {
	return rollout.Call{Input: "fmt.Println(6*7)", Result: envs.Result{Status: envs.StatusOK, Output: "42"}}
}

func failed(s envs.Status) rollout.Call {
	return rollout.Call{Input: "fmt.Println(6*)", Result: envs.Result{Status: s, Output: "error"}}
}

// Hand-written responses, in the default format.
const (
	full = "<think>Multiply.</think>\n<code>fmt.Println(6*7)</code>\n<output>42\n</output>\n" +
		"<think>The tool says 42.</think>\n<answer>42</answer>"
	direct      = "<think>6*7 is 42.</think><answer>42</answer>"
	twoCalls    = "<think>a</think><code>x</code><output>err</output><code>y</code><output>42</output><answer>42</answer>"
	twoAnswers  = "<think>a</think><code>x</code><output>41</output><answer>41</answer><answer>42</answer>"
	noClose     = "<think>a<code>x</code><output>42</output><answer>42"
	outOfOrder  = "<code>x</code><output>42</output><think>a</think><answer>42</answer>"
	nested      = "<think>a<code>x</code></think><output>42</output><answer>42</answer>"
	strayClose  = "<think>a</think></think><code>x</code><output>42</output><answer>42</answer>"
	textOutside = "<think>a</think>so<code>x</code><output>42</output><answer>42</answer>"
	answerFirst = "<answer>42</answer><think>a</think><code>x</code><output>42</output>"
)

// scores is what each math component gives one response.
type scores struct{ answer, relaxed, strict, tool float64 }

func TestComponents(t *testing.T) {
	f := format.DefaultFormat()
	cases := []struct {
		name     string
		response string
		calls    []rollout.Call
		gold     string
		want     scores
	}{
		{"full tool use", full, []rollout.Call{ok()}, "42", scores{2, 0.5, 0.5, 1}},
		{"direct answer", direct, nil, "42", scores{2, 0.25, 0, 0}},
		{"wrong answer", full, []rollout.Call{ok()}, "43", scores{0, 0.5, 0.5, 1}},
		{"equivalent answer", strings.Replace(full, "<answer>42", `<answer>$\boxed{42.0}$`, 1), []rollout.Call{ok()}, "42", scores{2, 0.5, 0.5, 1}},
		{"one call of two fails", twoCalls, []rollout.Call{failed(envs.StatusError), ok()}, "42", scores{2, 0.5, 0.5, 0.5}},
		{"empty output is no success", twoCalls, []rollout.Call{failed(envs.StatusEmpty), failed(envs.StatusTimeout)}, "42", scores{2, 0.5, 0.5, 0}},
		{"last of two answers wins", twoAnswers, []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"last of two answers loses", twoAnswers, []rollout.Call{ok()}, "41", scores{0, 0.5, 0, 1}},
		{"missing closing tags", noClose, []rollout.Call{ok()}, "42", scores{0, 0.25, 0, 1}},
		{"out of order", outOfOrder, []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"answer first", answerFirst, []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"nested", nested, []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"stray closing tag", strayClose, []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"text outside blocks", textOutside, []rollout.Call{ok()}, "42", scores{2, 0.5, 0, 1}},
		{"boxed without tags", `It is \boxed{42}.`, nil, "42", scores{2, 0, 0, 0}},
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
			if got, want := Correct(tr, task(c.gold), f), c.want.answer == 2; got != want {
				t.Errorf("Correct = %v, want %v", got, want)
			}
		})
	}
}

// TestStrictGrammar checks FormatStrict against T (C O T?)+ A on block
// sequences written as letters.
func TestStrictGrammar(t *testing.T) {
	cases := map[string]bool{
		"TCOA": true, "TCOTA": true, "TCOCOA": true, "TCOTCOA": true, "TCOTCOTA": true,
		"": false, "TA": false, "A": false, "TCA": false, "TCOO": false, "TCOAA": false,
		"TTCOA": false, "TCOTTA": false, "CO A": false, "TCOATA": false, "TCOTCA": false,
		"TOCA": false, "TCCOA": false, "TCOACOA": false, "TCO": false,
	}
	tags := map[rune]string{'T': "think", 'C': "code", 'O': "output", 'A': "answer"}
	strict := FormatStrict(format.DefaultFormat())
	for seq, want := range cases {
		t.Run(seq, func(t *testing.T) {
			var b strings.Builder
			for _, r := range seq {
				if n, ok := tags[r]; ok {
					b.WriteString(" \n<" + n + ">text</" + n + ">\t")
				}
			}
			got, _ := strict(&rollout.Trajectory{Response: b.String()}, task("1"))
			if (got == strictScore) != want {
				t.Errorf("FormatStrict(%q) = %v, want accepted=%v", b.String(), got, want)
			}
		})
	}
}

// TestFormatStrictBoundedTime feeds FormatStrict adversarial responses
// (the ones mathgrade's TestBoundedTime feeds Extract); each call must
// finish well within a second.
func TestFormatStrictBoundedTime(t *testing.T) {
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
	strict := FormatStrict(format.DefaultFormat())
	for name, r := range responses {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			strict(&rollout.Trajectory{Response: r}, task("1"))
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

func TestOutputBlockNotInspected(t *testing.T) {
	f := format.DefaultFormat()
	r := "<think>a</think><code>x</code><output><think><answer>0</answer><code></output><answer>42</answer>"
	tr := &rollout.Trajectory{Response: r, Calls: []rollout.Call{ok()}}
	if s, _ := FormatStrict(f)(tr, task("42")); s != strictScore {
		t.Errorf("strict = %v, want %v: tags printed by the tool must not count as nesting", s, strictScore)
	}
	if s, _ := Answer(f)(tr, task("42")); s != answerScore {
		t.Errorf("answer = %v, want %v: an answer printed by the tool must not count", s, answerScore)
	}
}

// TestCustomTags rewrites the responses with other tag names: the scores
// must not change, and the default-tag responses must score no format.
func TestCustomTags(t *testing.T) {
	f := format.Format{Think: "reasoning", Code: "python", Output: "result", Answer: "final"}
	swap := strings.NewReplacer("think>", "reasoning>", "code>", "python>", "output>", "result>", "answer>", "final>")
	for _, r := range []string{full, direct, twoCalls, nested} {
		tr := &rollout.Trajectory{Response: r, Calls: []rollout.Call{ok()}}
		custom := &rollout.Trajectory{Response: swap.Replace(r), Calls: tr.Calls}
		for _, name := range Names() {
			def, err := Lookup(name, Env{Format: format.DefaultFormat()})
			if err != nil {
				continue // a component that needs a family's supplies
			}
			cus, _ := Lookup(name, Env{Format: f})
			a, _ := def(tr, task("42"))
			b, _ := cus(custom, task("42"))
			if a != b {
				t.Errorf("%s on %q: default tags %v, custom tags %v", name, r, a, b)
			}
		}
		if s, _ := FormatRelaxed(f)(tr, task("42")); s != 0 {
			t.Errorf("relaxed with custom tags on default-tag text = %v, want 0", s)
		}
	}
}

func TestAnswerNotApplies(t *testing.T) {
	f := format.DefaultFormat()
	tr := &rollout.Trajectory{Response: direct}
	if s, applies := Answer(f)(tr, task("  ")); s != 0 || applies {
		t.Errorf("Answer on a task without gold = %v, %v; want 0, false", s, applies)
	}
	if Correct(tr, task(""), f) {
		t.Error("Correct on a task without gold must be false")
	}
}
