package mathgrade

import "strings"

// A statement is an answer stated in words: its text, where its marker
// starts, and whether it is explicit (a lead-in such as "Final Answer:",
// or "final answer is"), which makes it beat an earlier box.
type statement struct {
	text     string
	at       int
	explicit bool
}

// lastStatement returns the later of the last "answer is" phrase and the
// last answer lead-in of s (see Extract) whose marker starts at from or
// later.
func lastStatement(s string, from int) (statement, bool) {
	is, okIs := answerIs(s, from)
	lead, okLead := leadIn(s, from)
	if okLead && (!okIs || lead.at > is.at) {
		return lead, true
	}
	return is, okIs
}

// answerIs returns the answer stated after the last "answer is" in s at
// from or later: a
// math span if one follows, else the rest of the line up to a full stop
// followed by a space; Markdown bold stars around it go. It is explicit
// when "final" comes before.
func answerIs(s string, from int) (statement, bool) {
	i := lastIndexFold(s[from:], "answer is")
	if i < 0 {
		return statement{}, false
	}
	i += from
	rest := strings.TrimLeft(s[i+len("answer is"):], " \t:")
	text := statedText(rest)
	explicit := i >= len("final ") && asciiLowerHasPrefix(s[i-len("final "):], "final ")
	return statement{text, i, explicit}, text != ""
}

// leadIn returns the answer after the last lead-in of s at from or later:
// "Answer" at the
// start of a line (after spaces, Markdown marks and an optional "Final"),
// followed by a colon, or by math (Answer \[ 7 \]).
func leadIn(s string, from int) (statement, bool) {
	for end := len(s); end > from; {
		i := lastIndexFold(s[from:end], "answer")
		if i < 0 {
			break
		}
		i += from
		end = i
		if rest, ok := afterLeadIn(s, i); ok {
			text := statedText(rest)
			if t, ok := cutSentence(text); ok {
				text = t
			}
			return statement{text, i, true}, text != ""
		}
	}
	return statement{}, false
}

// afterLeadIn reports whether the "answer" at s[i:] is a lead-in, and
// returns the text after it.
func afterLeadIn(s string, i int) (string, bool) {
	j := i
	if j >= len("final ") && asciiLowerHasPrefix(s[j-len("final "):], "final ") {
		j -= len("final ")
	}
	for j > 0 && strings.IndexByte(" \t*#>", s[j-1]) >= 0 {
		j--
	}
	if j > 0 && s[j-1] != '\n' {
		return "", false
	}
	rest := s[i+len("answer"):]
	if rest != "" && isLetter(rest[0]) {
		return "", false // answers, answered
	}
	rest = strings.TrimLeft(rest, " \t*")
	colon := strings.HasPrefix(rest, ":")
	rest = strings.TrimLeft(strings.TrimPrefix(rest, ":"), " \t*")
	if !colon && !startsMath(rest) {
		return "", false
	}
	return rest, true
}

// mathSpans are the math delimiters an answer may be written in, longest
// opening first.
var mathSpans = [][2]string{{"$$", "$$"}, {`\[`, `\]`}, {`\(`, `\)`}, {"$", "$"}}

func startsMath(s string) bool {
	for _, d := range mathSpans {
		if strings.HasPrefix(s, d[0]) {
			return true
		}
	}
	return strings.HasPrefix(s, `\boxed`)
}

// statedText is the answer that starts rest: a math span if one starts
// there, else the rest of the line up to a full stop followed by a space;
// Markdown bold stars around it go.
func statedText(rest string) string {
	for _, d := range mathSpans {
		if strings.HasPrefix(rest, d[0]) {
			if end := strings.Index(rest[len(d[0]):], d[1]); end >= 0 {
				rest = rest[len(d[0]) : len(d[0])+end]
			}
			break
		}
	}
	if end := strings.IndexByte(rest, '\n'); end >= 0 {
		rest = rest[:end]
	}
	if end := strings.Index(rest, ". "); end >= 0 {
		rest = rest[:end]
	}
	return strings.Trim(strings.TrimRight(strings.TrimSpace(rest), "."), " *") // **bold**
}

// cutSentence reads a sentence "The … is x" (as in "Final Answer: The
// smallest $k$ is 12") and returns x.
func cutSentence(text string) (string, bool) {
	if len(text) < len("the ") || !asciiLowerHasPrefix(text, "the ") {
		return "", false
	}
	i := strings.LastIndex(text, " is ")
	if i < 0 {
		return "", false
	}
	x := strings.TrimSpace(text[i+len(" is "):])
	return x, x != ""
}
