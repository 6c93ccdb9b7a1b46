// Package format is how a rollout's text writes reasoning, tool calls,
// tool results and the answer: the tags style of ARTIST and the art style
// of ART's program lines. It renders those parts, parses them back and
// names the stop strings. It imports nothing of the project, so that the
// engine, rewards and the math grader share it without depending on each
// other.
package format

import (
	"errors"
	"fmt"
	"strings"
)

// Format says how the rollout text writes reasoning, tool calls, tool
// results and the answer. Names are configuration, never literals in code.
//
// In the tags style (the default) the math format of the paper is
// <think>…</think><code>…</code><output>…</output><answer>…</answer>, where
// the output block is written by the engine, never by the policy.
//
// In the art style (ART's program syntax, see format_art.go) a call is a
// line "[code] input" (optionally after a "Q1: " label), the engine writes
// its result as the line "#1: result", and the answer is the line
// "Ans: answer"; any other text is the reasoning. Think and Output name
// nothing there, but must still be valid names.
type Format struct {
	// Style is "tags" (default; "" means tags) or "art".
	Style  string `yaml:"style"`
	Think  string `yaml:"think"`  // reasoning block
	Code   string `yaml:"code"`   // tool call; decoding pauses at its closing tag (art: the call marker [code])
	Output string `yaml:"output"` // tool result, written by the engine, loss-masked
	Answer string `yaml:"answer"` // final answer; its closing tag ends the rollout (art: see AnswerLabel)
}

// Styles of Format.
const (
	StyleTags = "tags" // <think>…</think><code>…</code><output>…</output><answer>…</answer>
	StyleART  = "art"  // ART's program lines: [code] …, #n: …, Ans: …
)

// DefaultFormat is the math format of ARTIST, with Go code in the code tag.
func DefaultFormat() Format {
	return Format{Think: "think", Code: "code", Output: "output", Answer: "answer"}
}

// ART reports whether f is in the art style.
func (f Format) ART() bool { return f.Style == StyleART }

// Open returns "<name>".
func Open(name string) string { return "<" + name + ">" }

// Close returns "</name>".
func Close(name string) string { return "</" + name + ">" }

// Block is body between the opening and closing tags of name.
func Block(name, body string) string { return Open(name) + body + Close(name) }

// Tags lists the opening and closing tags of every block, in format order:
// the markers a built-in tokenizer keeps as single tokens. In the art style
// they are the call marker "[" + Code + "]" and the answer label.
func (f Format) Tags() []string {
	if f.ART() {
		return []string{"[" + f.Code + "]", f.AnswerLabel()}
	}
	var out []string
	for _, n := range []string{f.Think, f.Code, f.Output, f.Answer} {
		out = append(out, Open(n), Close(n))
	}
	return out
}

// Validate requires a known style and four distinct, non-empty tag names;
// the art style also requires a code name that a call line can hold (no
// space, "[" or "]").
func (f Format) Validate() error {
	switch f.Style {
	case "", StyleTags:
	case StyleART:
		if strings.ContainsAny(f.Code, " []\n") {
			return fmt.Errorf("rollout: format.code %q cannot name an art-style call [%s]: use one word such as code", f.Code, f.Code)
		}
	default:
		return fmt.Errorf("rollout: format.style %q is unknown: use tags (the default) or art", f.Style)
	}
	names := map[string]string{"think": f.Think, "code": f.Code, "output": f.Output, "answer": f.Answer}
	seen := map[string]string{}
	for key, n := range names {
		if n == "" {
			return fmt.Errorf("rollout: format.%s is empty: give a tag name such as %q", key, DefaultFormat().byKey(key))
		}
		if other, ok := seen[n]; ok {
			return fmt.Errorf("rollout: format.%s and format.%s are both %q: tag names must differ", key, other, n)
		}
		seen[n] = key
	}
	for _, n := range names {
		for _, c := range n {
			if c == '<' || c == '>' || c == '/' {
				return errors.New("rollout: format tag names are bare words: write think, not <think>")
			}
		}
	}
	return nil
}

func (f Format) byKey(k string) string {
	switch k {
	case "think":
		return f.Think
	case "code":
		return f.Code
	case "output":
		return f.Output
	}
	return f.Answer
}

// resultSuffix follows the closing output tag of every tool result.
const resultSuffix = "\n"

// ResultBlock is the text the engine writes after a tool call whose
// (possibly truncated) result is result, in the tags style: Open(Output) +
// result + Close(Output) + "\n". Format.ResultText writes either style.
func ResultBlock(f Format, result string) string {
	return Open(f.Output) + result + Close(f.Output) + resultSuffix
}

// The texts below render the parts of a response in f's style, as the
// policy writes them (demonstrations use them so they match rollouts).

// ThinkText is reasoning: a think block, or (art) the text on its own
// line.
func (f Format) ThinkText(text string) string {
	if f.ART() {
		return text + "\n"
	}
	return Block(f.Think, text)
}

// CallText is a call with input code: a code block, or (art) the line
// CallMarker + OneLine(code) + "\n".
func (f Format) CallText(code string) string {
	if f.ART() {
		return f.CallMarker() + OneLine(code) + "\n"
	}
	return Block(f.Code, code)
}

// OneLine writes code as one line, as an art-style call holds it: its
// lines trimmed of surrounding space, blank ones dropped, joined by "; "
// (Go reads the semicolons as the newlines it inserts them for). Code
// with a // comment or a raw string across lines does not survive it.
func OneLine(code string) string {
	var lines []string
	for _, l := range strings.Split(code, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// ResultText is the result of the n-th call (from 1) whose tool output is
// output, as the engine writes it when output fits max_result_tokens: in
// the tags style ResultBlock(f, output); in the art style ResultPrefix(n)
// before each line of output, trailing newlines dropped, and "\n".
func (f Format) ResultText(n int, output string) string {
	if f.ART() {
		return f.ResultPrefix(n) + f.artResultBody(n, output) + "\n"
	}
	return ResultBlock(f, output)
}

// AnswerText is the final answer: an answer block, or (art) the line
// AnswerLabel + " " + answer + "\n".
func (f Format) AnswerText(answer string) string {
	if f.ART() {
		return f.AnswerLabel() + " " + answer + "\n"
	}
	return Block(f.Answer, answer)
}

// ResultOpen, ResultBody and ResultClose are the three pieces of the n-th
// call's result block that the engine encodes one by one; the body is
// the tool's output made safe (see SafeOutput) and may be cut.
func (f Format) ResultOpen(n int) string {
	if f.ART() {
		return f.ResultPrefix(n)
	}
	return Open(f.Output)
}

// ResultBody is the n-th call's tool output as its result block holds it.
func (f Format) ResultBody(n int, output string) string {
	if f.ART() {
		return f.artResultBody(n, output)
	}
	return f.SafeOutput(output)
}

// ResultClose ends a result block.
func (f Format) ResultClose() string {
	if f.ART() {
		return "\n"
	}
	return Close(f.Output) + resultSuffix
}

// SafeOutput is tool output with every closing output tag broken
// ("</output>" becomes "< /output>"), so that a result cannot end its
// own block early.
func (f Format) SafeOutput(output string) string {
	return strings.ReplaceAll(output, Close(f.Output), "< /"+f.Output+">")
}

// StopStrings are the stop sequences a completions server is given: the
// closing code and answer tags, or (art) the newline, at which the client
// looks at the line just ended (see Remote).
func (f Format) StopStrings() []string {
	if f.ART() {
		return []string{"\n"}
	}
	return []string{Close(f.Code), Close(f.Answer)}
}
