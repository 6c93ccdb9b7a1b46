package archgraph

import (
	"fmt"
	"strings"
)

// The markers around the generated graph in a Markdown file. Between
// them stands one fenced code block (Fence) holding Render's text.
const (
	BeginMarker = "<!-- archgraph:begin -->"
	EndMarker   = "<!-- archgraph:end -->"
)

// Fence returns text as a fenced code block of Markdown, as it stands
// between the markers.
func Fence(text string) string { return "```text\n" + text + "```\n" }

// Block returns what doc holds between its lines BeginMarker and
// EndMarker, the marker lines left out. Each marker must stand once, on
// a line of its own, the begin marker first.
func Block(doc string) (string, error) {
	start, end, err := bounds(doc)
	if err != nil {
		return "", err
	}
	return doc[start:end], nil
}

// ReplaceBlock returns doc with what stands between its markers replaced
// by block (which should end in a newline); the markers must stand as
// Block requires.
func ReplaceBlock(doc, block string) (string, error) {
	start, end, err := bounds(doc)
	if err != nil {
		return "", err
	}
	return doc[:start] + block + doc[end:], nil
}

// bounds returns the byte range of doc between the end of the begin
// marker's line and the start of the end marker's line.
func bounds(doc string) (start, end int, err error) {
	find := func(marker string) (int, error) {
		line := "\n" + marker + "\n"
		i := strings.Index("\n"+doc+"\n", line)
		if i < 0 {
			return 0, fmt.Errorf("archgraph: no line %q", marker)
		}
		if strings.Count("\n"+doc+"\n", line) > 1 {
			return 0, fmt.Errorf("archgraph: line %q stands more than once", marker)
		}
		return i, nil // the offset of the marker's line in doc
	}
	b, err := find(BeginMarker)
	if err != nil {
		return 0, 0, err
	}
	e, err := find(EndMarker)
	if err != nil {
		return 0, 0, err
	}
	start = min(b+len(BeginMarker)+1, len(doc))
	if e < start {
		return 0, 0, fmt.Errorf("archgraph: %q comes before %q", EndMarker, BeginMarker)
	}
	return start, e, nil
}
