package library

import (
	"errors"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Syntax is how demonstrations are written into a prompt.
type Syntax string

const (
	// SyntaxTags writes a demonstration in the run's format, as the
	// policy would write it (the default): tag blocks, or ART's program
	// lines when the format's style is art.
	SyntaxTags Syntax = "tags"
	// SyntaxART writes it in ART's program syntax: "Q:" input, "[tool]
	// call" lines, "#n: result" lines and "Ans:" answer (ART's labels).
	SyntaxART Syntax = "art"
)

// ParseSyntax accepts "tags" and "art" ("" means tags).
func ParseSyntax(s string) (Syntax, error) {
	switch Syntax(s) {
	case "", SyntaxTags:
		return SyntaxTags, nil
	case SyntaxART:
		return SyntaxART, nil
	}
	return "", fmt.Errorf("library: syntax %q is unknown: use tags or art", s)
}

// Task is the demonstration's task: its id, input as the prompt and
// answer as the gold answer.
func (d Demo) Task() envs.Task { return envs.Task{ID: d.ID, Prompt: d.Input, Answer: d.Answer} }

// ToRollout is the demonstration as the warm start trains on it, written
// in f's style by rollout.Program: its task, and segments that alternate
// the policy's text (thoughts in think tags, calls in code tags, the
// answer in answer tags; or the art style's lines) and each result as the
// engine writes it (format.Format.ResultText, loss mask 0).
func ToRollout(d Demo, f format.Format) rollout.Demo {
	prog := rollout.NewProgram(f)
	for _, s := range d.Steps {
		if s.Thought != "" {
			prog.Think(s.Thought)
		}
		if s.Calls() {
			prog.Call(s.Call, s.Result)
		}
	}
	prog.Answer(d.Answer)
	return rollout.Demo{Task: d.Task(), UsesTool: prog.Calls() > 0, Segments: prog.Segments()}
}

// Render writes d in syntax: with SyntaxTags, rollout.PromptText of its
// task followed by the response of ToRollout; with SyntaxART, the form
// of the package doc. The text ends with the answer, without a newline.
func Render(d Demo, f format.Format, syntax Syntax) string {
	if syntax != SyntaxART {
		return rollout.PromptText(d.Task()) + strings.TrimSuffix(ToRollout(d, f).Response(), "\n")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Q: %s\n", d.Input)
	n := 0
	for _, s := range d.Steps {
		if s.Thought != "" {
			b.WriteString(s.Thought + "\n")
		}
		if s.Calls() {
			n++
			fmt.Fprintf(&b, "[%s] %s\n#%d: %s\n", s.Tool, strings.TrimRight(s.Call, "\n"), n, strings.TrimRight(s.Result, "\n"))
		}
	}
	b.WriteString("Ans: " + d.Answer)
	return b.String()
}

// demoSep ends each demonstration of a prompt prefix.
const demoSep = "\n\n"

// Prefix is the text put before a task's prompt: the matches rendered in
// syntax, each followed by a blank line, the most similar last so that
// it stands next to the task. No matches give "".
func Prefix(matches []Match, f format.Format, syntax Syntax) string {
	var b strings.Builder
	for i := len(matches) - 1; i >= 0; i-- {
		b.WriteString(Render(matches[i].Demo, f, syntax) + demoSep)
	}
	return b.String()
}

// FromRollout turns a worked solution into a demonstration of family:
// its task's id and prompt become id and input, the think, code and
// answer blocks of the policy's segments become thoughts, calls and the
// answer, and each result block (a segment the policy did not write)
// becomes the result of the call before it. Calls run with tool. A
// solution with text outside the blocks, a result without a call, a call
// without a result, a later user turn or no answer is an error.
//
// In the art style of f the policy's segments are read as lines
// (format.Format.Pieces: reasoning lines, call lines, the answer line)
// and each result segment must be the next call's "#n: " lines.
func FromRollout(r rollout.Demo, f format.Format, family, tool string) (Demo, error) {
	d := Demo{ID: r.Task.ID, Family: family, Input: r.Task.Prompt}
	fail := func(format string, args ...any) (Demo, error) {
		return Demo{}, fmt.Errorf("library: solution of %s: %s", r.Task.ID, fmt.Sprintf(format, args...))
	}
	if len(r.Task.Turns) > 0 {
		return fail("has later user turns, which a demonstration cannot hold")
	}
	if f.ART() {
		if err := d.readART(r, f, tool); err != nil {
			return fail("%v", err)
		}
		return d, nil
	}
	var thought string
	pending := false // a call waits for its result
	answered := false
	for _, seg := range r.Segments {
		if seg.Tool {
			res, ok := resultOf(seg.Text, f)
			if !ok || !pending {
				return fail("tool text %.80q is not the result of a call", seg.Text)
			}
			d.Steps[len(d.Steps)-1].Result, pending = res, false
			continue
		}
		blocks, err := splitBlocks(seg.Text, f)
		if err != nil {
			return fail("%v", err)
		}
		for _, b := range blocks {
			if answered || pending {
				return fail("%s block after the answer or before a call's result", b.name)
			}
			switch b.name {
			case f.Think:
				if thought != "" {
					d.Steps = append(d.Steps, Step{Thought: thought})
				}
				thought = b.body
			case f.Code:
				d.Steps = append(d.Steps, Step{Thought: thought, Tool: tool, Call: b.body})
				thought, pending = "", true
			case f.Answer:
				if thought != "" {
					d.Steps = append(d.Steps, Step{Thought: thought})
				}
				d.Answer, answered = b.body, true
			default:
				return fail("%s block written by the policy", b.name)
			}
		}
	}
	if pending {
		return fail("its last call has no result")
	}
	if !answered || d.Answer == "" {
		return fail("has no answer block")
	}
	return d, nil
}

// readART fills d's steps and answer from an art-style solution.
func (d *Demo) readART(r rollout.Demo, f format.Format, tool string) error {
	var thought string
	pending, answered, calls := false, false, 0
	for _, seg := range r.Segments {
		pieces := f.Pieces(seg.Text)
		if seg.Tool {
			if !pending || len(pieces) != 1 || pieces[0].Kind != format.PieceResult || pieces[0].N != calls {
				return fmt.Errorf("tool text %.80q is not the result of call %d", seg.Text, calls)
			}
			d.Steps[len(d.Steps)-1].Result, pending = pieces[0].Text, false
			continue
		}
		for _, p := range pieces {
			if answered || pending {
				return fmt.Errorf("line %.60q after the answer or before a call's result", p.Text)
			}
			switch p.Kind {
			case format.PieceText:
				thought = p.Text
			case format.PieceCall:
				d.Steps = append(d.Steps, Step{Thought: thought, Tool: tool, Call: p.Text})
				thought, pending, calls = "", true, calls+1
			case format.PieceAnswer:
				if thought != "" {
					d.Steps = append(d.Steps, Step{Thought: thought})
				}
				d.Answer, answered = p.Text, true
			default:
				return fmt.Errorf("result line %.60q written by the policy", p.Text)
			}
		}
	}
	if pending {
		return errors.New("its last call has no result")
	}
	if !answered || d.Answer == "" {
		return errors.New("has no answer line")
	}
	return nil
}

// resultOf reads a result block (format.ResultBlock) back.
func resultOf(text string, f format.Format) (string, bool) {
	open, end := format.Open(f.Output), format.Close(f.Output)+"\n"
	if !strings.HasPrefix(text, open) || !strings.HasSuffix(text, end) || len(text) < len(open)+len(end) {
		return "", false
	}
	return text[len(open) : len(text)-len(end)], true
}

type block struct{ name, body string }

// splitBlocks cuts the policy's text into its tag blocks; only
// whitespace may stand between them.
func splitBlocks(text string, f format.Format) ([]block, error) {
	var out []block
	for rest := text; strings.TrimSpace(rest) != ""; {
		rest = strings.TrimLeft(rest, " \t\n")
		name, ok := openingTag(rest, f)
		if !ok {
			return nil, fmt.Errorf("text %.60q stands outside the tags", rest)
		}
		body := rest[len(format.Open(name)):]
		end := strings.Index(body, format.Close(name))
		if end < 0 {
			return nil, fmt.Errorf("%s block is not closed", name)
		}
		out = append(out, block{name, body[:end]})
		rest = body[end+len(format.Close(name)):]
	}
	return out, nil
}

func openingTag(text string, f format.Format) (string, bool) {
	for _, n := range []string{f.Think, f.Code, f.Output, f.Answer} {
		if strings.HasPrefix(text, format.Open(n)) {
			return n, true
		}
	}
	return "", false
}
