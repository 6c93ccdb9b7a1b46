package mathgrade

import (
	"strings"

	"github.com/artist-rl/artist/rollout"
)

// MaxAnswerLen is the longest answer, in bytes, that Equal compares; longer
// answers are never equal to anything. It bounds the grader's time.
const MaxAnswerLen = 4096

// Extract returns the final answer written in response, trimmed of
// surrounding space. In order of preference:
//
//   - the last complete answer block (an opening answer tag followed by a
//     closing one); within it, the last boxed answer or the phrase after
//     "answer is" when there is one, else the whole block;
//   - the last boxed answer: \boxed{...} or \fbox{...} whose braces
//     balance, or \boxed followed by a space and one token (\boxed 5);
//   - the text after the last "answer is" (any case): a $...$ span if one
//     starts there, else the rest of the line up to a full stop, without
//     Markdown bold stars.
//
// Text inside complete output blocks is ignored: the tool wrote it, not the
// policy. ok is false when none of these exists. Extract takes time linear
// in len(response) and never panics.
//
// In the art style of f the answer block is the last answer line
// ("Ans: 42", rollout.Format.AnswerLine), and the tool's text that is
// ignored is every result line ("#n: …").
func Extract(response string, f rollout.Format) (answer string, ok bool) {
	text, s, found := "", "", false
	if f.ART() {
		text, s, found = artParts(response, f)
	} else {
		text = dropBlocks(response, rollout.Open(f.Output), rollout.Close(f.Output))
		s, found = lastBlock(text, rollout.Open(f.Answer), rollout.Close(f.Answer))
	}
	if found {
		if b, ok := lastBoxed(s); ok {
			return strings.TrimSpace(b), true
		}
		if a, ok := answerIs(s); ok {
			return a, true
		}
		return strings.TrimSpace(s), true
	}
	if s, ok := lastBoxed(text); ok {
		return strings.TrimSpace(s), true
	}
	return answerIs(text)
}

// artParts reads an art-style response: the policy's text (every line
// but the result lines) and the last answer line's answer, if any.
func artParts(response string, f rollout.Format) (text, answer string, found bool) {
	var b strings.Builder
	for _, p := range f.Pieces(response) {
		switch p.Kind {
		case rollout.PieceResult:
			b.WriteString(" \n")
			continue
		case rollout.PieceAnswer:
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

// boxCommands mark a boxed answer.
var boxCommands = []string{`\boxed`, `\fbox`}

// lastBoxed returns the content of the last boxed answer: a box command
// followed, after optional spaces, by a group whose opening brace is
// matched (escaped braces do not count), or by at least one space and a
// token that runs to the next space, dollar sign or unmatched closing
// brace (\textbf{\boxed 5} boxes 5).
func lastBoxed(s string) (string, bool) {
	var starts []int // ends of box commands, in order
	for i := strings.IndexByte(s, '\\'); i >= 0; {
		for _, c := range boxCommands {
			if strings.HasPrefix(s[i:], c) {
				starts = append(starts, i+len(c))
				break
			}
		}
		j := strings.IndexByte(s[i+1:], '\\')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	var match []int
	for k := len(starts) - 1; k >= 0; k-- {
		at := starts[k]
		i := at
		for i < len(s) && s[i] == ' ' {
			i++
		}
		switch {
		case i < len(s) && s[i] == '{':
			c := -1
			if k == len(starts)-1 {
				c = closingBrace(s, i) // usually near the end: no need to match every brace
			} else {
				if match == nil {
					match = matchBraces(s)
				}
				c = match[i]
			}
			if c >= 0 {
				return s[i+1 : c], true
			}
		case i > at && i < len(s):
			j := boxedToken(s, i)
			if j > i {
				return s[i:j], true
			}
		}
	}
	return "", false
}

// boxedToken returns the end of the token of \boxed 5 that starts at i:
// the next space, tab, newline or dollar sign, or a closing brace that
// closes no brace of the token.
func boxedToken(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case ' ', '\n', '\t', '$':
			return j
		case '{':
			depth++
		case '}':
			if depth--; depth < 0 {
				return j
			}
		case '\\':
			if j+1 < len(s) && (s[j+1] == '{' || s[j+1] == '}') {
				j++
			}
		}
	}
	return len(s)
}

// answerIs returns the answer stated after the last "answer is" in s: a
// $…$ span if one follows, else the rest of the line up to a full stop
// followed by a space; Markdown bold stars around it go.
func answerIs(s string) (string, bool) {
	i := lastIndexFold(s, "answer is")
	if i < 0 {
		return "", false
	}
	rest := strings.TrimLeft(s[i+len("answer is"):], " \t:")
	if strings.HasPrefix(rest, "$") {
		delim := "$"
		if strings.HasPrefix(rest, "$$") {
			delim = "$$"
		}
		if end := strings.Index(rest[len(delim):], delim); end >= 0 {
			rest = rest[len(delim) : len(delim)+end]
		}
	}
	if end := strings.IndexByte(rest, '\n'); end >= 0 {
		rest = rest[:end]
	}
	if end := strings.Index(rest, ". "); end >= 0 {
		rest = rest[:end]
	}
	rest = strings.Trim(strings.TrimRight(strings.TrimSpace(rest), "."), " *") // **bold**
	return rest, rest != ""
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
