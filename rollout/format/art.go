package format

// The art style of Format: ART's program syntax (Paranjape et al., 2023).
//
// A response is a sequence of lines. A call is a line that starts with
// the call marker "[" + Code + "] ", optionally after a "Qn: " label
// ("Q1: [code] fmt.Println(6*7)"); its input is the rest of the line and
// the newline that ends it ends the call: decoding pauses there. The
// engine then writes the n-th call's result (n counting the trajectory's
// calls from 1) as "#n: " + result + "\n", loss-masked; a result of
// several lines gets the "#n: " prefix on every line, so that every line
// of a result says it is one and no line of tool output reads as a call
// or an answer. The answer is a line that starts with AnswerLabel; the
// newline that ends it ends the rollout. Every other line is reasoning.

import (
	"strconv"
	"strings"
)

// artAnswerLabel is ART's literal answer label.
const artAnswerLabel = "Ans:"

// AnswerLabel is the start of the answer line in the art style: ART's
// literal "Ans:" while Answer is the default name "answer", else Answer
// followed by ":" (answer: final gives "final:").
func (f Format) AnswerLabel() string {
	if f.Answer == DefaultFormat().Answer {
		return artAnswerLabel
	}
	return f.Answer + ":"
}

// CallMarker is the start of a call in the art style: "[" + Code + "] ".
func (f Format) CallMarker() string { return "[" + f.Code + "] " }

// ResultPrefix is the start of every line of the n-th call's result in
// the art style: "#n: ".
func (f Format) ResultPrefix(n int) string { return "#" + strconv.Itoa(n) + ": " }

// CallLine returns the input of an art-style call line (without its
// newline): the text after the call marker, when the line starts with the
// marker or with a "Qn: " label and the marker.
func (f Format) CallLine(line string) (input string, ok bool) {
	input, ok = strings.CutPrefix(dropLabel(line), f.CallMarker())
	if !ok {
		return "", false
	}
	return input, true
}

// dropLabel removes a leading "Qn: " label (n one or more digits).
func dropLabel(line string) string {
	rest, ok := strings.CutPrefix(line, "Q")
	if !ok {
		return line
	}
	d := digits(rest)
	if d == 0 || !strings.HasPrefix(rest[d:], ": ") {
		return line
	}
	return rest[d+2:]
}

// digits counts the leading ASCII digits of s.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// AnswerLine returns the answer of an art-style answer line (without its
// newline): the text after AnswerLabel, trimmed of space. A special
// token's text that ends the line ("<|endoftext|>", written when the
// end-of-sequence token ended the rollout there) is not part of it.
func (f Format) AnswerLine(line string) (answer string, ok bool) {
	rest, ok := strings.CutPrefix(line, f.AnswerLabel())
	if !ok {
		return "", false
	}
	if i := strings.LastIndex(rest, "<|"); i >= 0 && strings.HasSuffix(rest, "|>") {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest), true
}

// ResultLine returns the call number and the text of one line of an
// art-style result: "#n: text".
func ResultLine(line string) (n int, text string, ok bool) {
	rest, ok := strings.CutPrefix(line, "#")
	if !ok {
		return 0, "", false
	}
	d := digits(rest)
	if d == 0 || !strings.HasPrefix(rest[d:], ": ") {
		return 0, "", false
	}
	n, err := strconv.Atoi(rest[:d])
	if err != nil || n < 1 {
		return 0, "", false
	}
	return n, rest[d+2:], true
}

// artResultBody is output as the art style writes it after "#n: ": the
// trailing newlines dropped (the block's own newline ends it) and every
// inner newline followed by the prefix again.
func (f Format) artResultBody(n int, output string) string {
	return strings.ReplaceAll(strings.TrimRight(output, "\n"), "\n", "\n"+f.ResultPrefix(n))
}

// PieceKind is what a part of a response is.
type PieceKind int

const (
	PieceText   PieceKind = iota // reasoning (think block, or art-style free lines)
	PieceCall                    // a tool call
	PieceResult                  // a tool result, written by the engine
	PieceAnswer                  // the final answer
)

// Piece is one part of an art-style response (see Format.Pieces).
type Piece struct {
	Kind PieceKind
	// Text is the reasoning lines (joined by "\n"), the call's input, the
	// result's text (its lines joined by "\n", prefixes removed) or the
	// answer.
	Text string
	// N is a result's call number (the n of "#n: "); 0 otherwise.
	N int
}

// Pieces splits an art-style response into its parts, in order. A call is
// a call line ended by a newline (an unfinished one is reasoning: the
// engine did not run it); consecutive lines of one result ("#n: " with
// the same n) make one result; an answer is an answer line, ended by a
// newline or by the end of the response; consecutive reasoning lines make
// one text piece. Blank lines separate nothing and are dropped.
func (f Format) Pieces(response string) []Piece {
	var out []Piece
	var lines [][]string // the lines of each piece, joined at the end
	for rest := response; rest != ""; {
		line, tail, ended := strings.Cut(rest, "\n")
		rest = tail
		if strings.TrimSpace(line) == "" {
			continue
		}
		p := f.piece(line, ended)
		if n := len(out); n > 0 && p.Kind == out[n-1].Kind && (p.Kind == PieceText || p.Kind == PieceResult && p.N == out[n-1].N) {
			lines[n-1] = append(lines[n-1], p.Text)
			continue
		}
		out, lines = append(out, p), append(lines, []string{p.Text})
	}
	for i := range out {
		out[i].Text = strings.Join(lines[i], "\n")
	}
	return out
}

// piece classifies one non-blank line; ended says a newline ends it.
func (f Format) piece(line string, ended bool) Piece {
	if in, ok := f.CallLine(line); ok && ended {
		return Piece{Kind: PieceCall, Text: in}
	}
	if a, ok := f.AnswerLine(line); ok {
		return Piece{Kind: PieceAnswer, Text: a}
	}
	if n, text, ok := ResultLine(line); ok {
		return Piece{Kind: PieceResult, Text: text, N: n}
	}
	return Piece{Kind: PieceText, Text: line}
}

// Event is what the newline ending an art-style line asks of the engine.
type Event int

const (
	EventNone   Event = iota
	EventCall         // run the call whose input is the line's
	EventAnswer       // end the turn
)

// LineEvent finds the first newline of text at or after from that ends a
// call or an answer line, and says which, with the call's input. A line
// starts after a newline or at the start of text.
func (f Format) LineEvent(text string, from int) (Event, string) {
	for i := from; i < len(text); i++ {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j
		line := text[strings.LastIndexByte(text[:i], '\n')+1 : i]
		if in, ok := f.CallLine(line); ok {
			return EventCall, in
		}
		if _, ok := f.AnswerLine(line); ok {
			return EventAnswer, ""
		}
	}
	return EventNone, ""
}
