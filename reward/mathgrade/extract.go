package mathgrade

import (
	"strings"

	"github.com/artist-rl/artist/rollout/format"
)

// MaxAnswerLen is the longest answer, in bytes, that Equal compares; longer
// answers are never equal to anything. It bounds the grader's time.
const MaxAnswerLen = 4096

// Extract returns the final answer written in response, trimmed of
// surrounding space. In order of preference:
//
//   - the last complete answer block (an opening answer tag followed by a
//     closing one); within it, the final answer found as below when there
//     is one, else the whole block;
//   - the last boxed answer: \boxed{...} or \fbox{...} whose braces
//     balance, or \boxed followed by a space and one token (\boxed 5).
//     Boxes written one after the other on a line, joined only by
//     commas, semicolons, "and" or "or" (in \text{} or not), spaces and
//     math delimiters, are one answer, the list of their contents:
//     \boxed{2}, \boxed{4} is "2, 4", while \boxed{1} no \boxed{2} is "2";
//   - the last statement of the answer: the text after "answer is" (any
//     case), or after a lead-in at the start of a line, "Answer:",
//     "Final Answer:" or "Answer" followed by math ("Answer \[ 7 \]"): a
//     math span if one starts there, else the rest of the line up to a
//     full stop, without Markdown bold stars; a sentence "The … is x"
//     after a lead-in gives x.
//
// A boxed answer beats a statement but for an explicit one that comes
// after the box: a lead-in or "final answer is" written later in the
// response restates the answer, and wins.
//
// Text inside complete output blocks is ignored: the tool wrote it, not the
// policy. ok is false when none of these exists. Extract takes time linear
// in len(response) and never panics.
//
// In the art style of f the answer block is the last answer line
// ("Ans: 42", format.Format.AnswerLine), and the tool's text that is
// ignored is every result line ("#n: …").
func Extract(response string, f format.Format) (answer string, ok bool) {
	text, s, found := "", "", false
	if f.ART() {
		text, s, found = artParts(response, f)
	} else {
		text = dropBlocks(response, format.Open(f.Output), format.Close(f.Output))
		s, found = lastBlock(text, format.Open(f.Answer), format.Close(f.Answer))
	}
	if found {
		if a, ok := finalAnswer(s); ok {
			return a, true
		}
		return strings.TrimSpace(s), true
	}
	return finalAnswer(text)
}

// finalAnswer returns the boxed answer or the statement of the answer of
// s, by the rules of Extract.
func finalAnswer(s string) (string, bool) {
	box, ok := lastBoxed(s)
	if !ok {
		st, found := lastStatement(s, 0)
		return st.text, found
	}
	if st, found := lastStatement(s, box.end); found && st.explicit {
		return st.text, true // restated after the box
	}
	return strings.TrimSpace(box.text), true
}

// artParts reads an art-style response: the policy's text (every line
// but the result lines) and the last answer line's answer, if any.
func artParts(response string, f format.Format) (text, answer string, found bool) {
	var b strings.Builder
	for _, p := range f.Pieces(response) {
		switch p.Kind {
		case format.PieceResult:
			b.WriteString(" \n")
			continue
		case format.PieceAnswer:
			answer, found = p.Text, true
		}
		b.WriteString(p.Text + "\n")
	}
	return b.String(), answer, found
}

// lastBlock returns the content of the last complete open…close block.
func lastBlock(s, open, close string) (string, bool) {
	end := strings.LastIndex(s, close)
	if end < 0 {
		return "", false
	}
	start := strings.LastIndex(s[:end], open)
	if start < 0 {
		return "", false
	}
	return s[start+len(open) : end], true
}

// dropBlocks removes every complete open…close block, tags included. An
// opening tag without a closing one is kept as text.
func dropBlocks(s, open, close string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, open)
		if i < 0 {
			break
		}
		j := strings.Index(s[i+len(open):], close)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		s = s[i+len(open)+j+len(close):]
	}
	b.WriteString(s)
	return b.String()
}

// matchBraces returns, for every index i of s, the index of the '}' that
// matches a '{' at i, or -1. Escaped braces (\{ and \}) are not braces. It
// runs in one pass.
func matchBraces(s string) []int {
	match := make([]int, len(s))
	for i := range match {
		match[i] = -1
	}
	var stack []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // the escaped character, or the second backslash of a row break
		case '{':
			stack = append(stack, i)
		case '}':
			if n := len(stack); n > 0 {
				match[stack[n-1]] = i
				stack = stack[:n-1]
			}
		}
	}
	return match
}

// lastIndexFold is strings.LastIndex ignoring ASCII case; sub is lower
// case.
func lastIndexFold(s, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if s[i]|0x20 == sub[0] && asciiLowerHasPrefix(s[i:], sub) {
			return i
		}
	}
	return -1
}

func asciiLowerHasPrefix(s, lower string) bool {
	for j := 0; j < len(lower); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[j] {
			return false
		}
	}
	return true
}
