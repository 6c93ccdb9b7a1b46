package rollout

import (
	"strings"

	"github.com/artist-rl/artist/envs"
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

// Block is body between the opening and closing tags of name.
func Block(name, body string) string { return Open(name) + body + Close(name) }
