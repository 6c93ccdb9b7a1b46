package rollout

import (
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout/format"
)

// Demo is one ART-style demonstration: a worked solution of a task whose
// tool results come from really running the tool. Segments alternate the
// policy's text (trained on) and text the policy does not write (tool
// results, later user turns: loss mask 0). Task families write them for
// the warm start; the trainer encodes them with the run's prompt.
type Demo struct {
	Task     envs.Task `json:"task"`
	UsesTool bool      `json:"uses_tool"`
	Segments []Segment `json:"segments"`
}

// Segment is a piece of a demonstration's response.
type Segment struct {
	Text string `json:"text"`
	Tool bool   `json:"tool"` // not written by the policy: loss mask 0
}

// Response joins the segments.
func (d Demo) Response() string {
	var b strings.Builder
	for _, s := range d.Segments {
		b.WriteString(s.Text)
	}
	return b.String()
}

// Program writes a demonstration's segments in a format's style
// (Format.ThinkText, CallText, ResultText, AnswerText), so that a family
// writes one solution for both styles: the policy's text accumulates until
// a call's result, which stands in a segment of its own (Tool: true).
// Results are numbered by the calls made so far, as the engine numbers
// them.
type Program struct {
	f     format.Format
	segs  []Segment
	text  strings.Builder
	calls int
}

// NewProgram starts an empty program in f.
func NewProgram(f format.Format) *Program { return &Program{f: f} }

// Think adds reasoning.
func (p *Program) Think(text string) *Program { p.text.WriteString(p.f.ThinkText(text)); return p }

// Call adds a call with input code and the tool's output as its result.
func (p *Program) Call(code, output string) *Program {
	p.calls++
	p.text.WriteString(p.f.CallText(code))
	p.segs = append(p.segs, Segment{Text: p.text.String()}, Segment{Text: p.f.ResultText(p.calls, output), Tool: true})
	p.text.Reset()
	return p
}

// Answer adds the final answer.
func (p *Program) Answer(answer string) *Program {
	p.text.WriteString(p.f.AnswerText(answer))
	return p
}

// Calls counts the calls added.
func (p *Program) Calls() int { return p.calls }

// Segments returns the segments written so far; the policy's text since
// the last result is the last one, when there is any.
func (p *Program) Segments() []Segment {
	out := append([]Segment(nil), p.segs...)
	if p.text.Len() > 0 {
		out = append(out, Segment{Text: p.text.String()})
	}
	return out
}
