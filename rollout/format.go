package rollout

import (
	"errors"
	"fmt"

	"github.com/artist-rl/artist/envs"
)

// Format names the tags of the rollout text. Tag names are configuration,
// never literals in code. The math format of the paper is
// <think>…</think><code>…</code><output>…</output><answer>…</answer>, where
// the output block is written by the engine, never by the policy.
type Format struct {
	Think  string `yaml:"think"`  // reasoning block
	Code   string `yaml:"code"`   // tool call; decoding pauses at its closing tag
	Output string `yaml:"output"` // tool result, written by the engine, loss-masked
	Answer string `yaml:"answer"` // final answer; its closing tag ends the rollout
}

// DefaultFormat is the math format of ARTIST, with Go code in the code tag.
func DefaultFormat() Format {
	return Format{Think: "think", Code: "code", Output: "output", Answer: "answer"}
}

// Open returns "<name>".
func Open(name string) string { return "<" + name + ">" }

// Close returns "</name>".
func Close(name string) string { return "</" + name + ">" }

// Tags lists the opening and closing tags of every block, in format order.
func (f Format) Tags() []string {
	var out []string
	for _, n := range []string{f.Think, f.Code, f.Output, f.Answer} {
		out = append(out, Open(n), Close(n))
	}
	return out
}

// Validate requires four distinct, non-empty tag names.
func (f Format) Validate() error {
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
// (possibly truncated) result is result: Open(Output) + result +
// Close(Output) + "\n". Demonstrations use it so they match rollouts.
func ResultBlock(f Format, result string) string {
	return Open(f.Output) + result + Close(f.Output) + resultSuffix
}

// PromptText is the default rendering of a task for the policy: the
// question followed by a newline.
func PromptText(t envs.Task) string { return t.Prompt + "\n" }

// UserTurnText is the default rendering of a later user message of a
// multi-turn task: the message on its own line.
func UserTurnText(msg string) string { return "\n" + msg + "\n" }
