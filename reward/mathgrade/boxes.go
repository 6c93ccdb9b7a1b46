package mathgrade

import "strings"

// boxCommands mark a boxed answer.
var boxCommands = []string{`\boxed`, `\fbox`}

// A box is a boxed answer found in a response: its text, and where it
// starts (its box command) and ends (after its closing brace or token).
type box struct {
	text       string
	start, end int
}

// lastBoxed returns the last boxed answer of s: a box command followed,
// after optional spaces, by a group whose opening brace is matched
// (escaped braces do not count), or by at least one space and a token that
// runs to the next space, dollar sign or unmatched closing brace
// (\textbf{\boxed 5} boxes 5). Braced boxes just before it, joined to it by
// a list separator (see boxSeparator), are part of the answer: its text is
// then their contents joined by ", ".
func lastBoxed(s string) (box, bool) {
	var starts []int // box commands: their starts, in order
	for i := strings.IndexByte(s, '\\'); i >= 0; {
		for _, c := range boxCommands {
			if strings.HasPrefix(s[i:], c) {
				starts = append(starts, i)
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
		at := starts[k] + boxCommandLen(s[starts[k]:])
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
				return joinBoxes(s, box{s[i+1 : c], starts[k], c + 1}), true
			}
		case i > at && i < len(s):
			if j := boxedToken(s, i); j > i {
				return box{s[i:j], starts[k], j}, true
			}
		}
	}
	return box{}, false
}

// boxCommandLen is the length of the box command that starts s.
func boxCommandLen(s string) int {
	for _, c := range boxCommands {
		if strings.HasPrefix(s, c) {
			return len(c)
		}
	}
	return 0
}

// joinBoxes extends last with the braced boxes before it that a list
// separator joins to it, as in \boxed{2}, \boxed{4}, \boxed{6}.
func joinBoxes(s string, last box) box {
	texts := []string{last.text}
	var open []int // open[c]: the '{' that the '}' at c closes, or -1
	for {
		q, ok := boxSeparator(s, last.start)
		if !ok {
			break
		}
		if open == nil {
			open = openingBraces(s)
		}
		o := open[q-1]
		if o < 0 {
			break
		}
		cmd := strings.TrimRight(s[:o], " ")
		n := 0
		for _, c := range boxCommands {
			if strings.HasSuffix(cmd, c) {
				n = len(c)
			}
		}
		if n == 0 {
			break
		}
		texts = append(texts, s[o+1:q-1])
		last.start = len(cmd) - n
	}
	if len(texts) == 1 {
		return last
	}
	for i, j := 0, len(texts)-1; i < j; i, j = i+1, j-1 {
		texts[i], texts[j] = texts[j], texts[i]
	}
	last.text = strings.Join(texts, ", ")
	return last
}

// openingBraces returns, for every index c of s, the index of the '{'
// that the '}' at c matches, or -1.
func openingBraces(s string) []int {
	open := make([]int, len(s))
	for i := range open {
		open[i] = -1
	}
	for i, c := range matchBraces(s) {
		if c >= 0 {
			open[c] = i
		}
	}
	return open
}

// separatorTokens may stand between boxes of one answer; the first four
// separate items, the others are spacing and math delimiters.
var separatorTokens = []string{",", ";", "and", "or", " ", "\t", "$", `\(`, `\)`, `\quad`, `\qquad`, `\,`, `\;`, `\ `, `~`}

// maxSeparatorText is the longest \text{} group, braces included, that
// may separate boxes: looking no further keeps Extract linear.
const maxSeparatorText = 24

// boxSeparator reports whether the text that ends at end is a list
// separator between boxes that follows a closing brace: separator tokens,
// at least one of which separates items, or \text{} of them; it returns
// the index just after that brace.
func boxSeparator(s string, end int) (int, bool) {
	q, items := end, false
	for q > 0 {
		if s[q-1] == '}' {
			lo := max(0, q-maxSeparatorText)
			t := strings.LastIndex(s[lo:q], `\text{`)
			if t += lo; t < lo || !onlySeparators(s[t+len(`\text{`):q-1]) {
				break
			}
			items = items || separatesItems(s[t+len(`\text{`):q-1])
			q = t
			continue
		}
		tok := suffixToken(s[:q])
		if tok < 0 {
			break
		}
		items = items || tok < 4
		q -= len(separatorTokens[tok])
	}
	return q, items && q > 0 && s[q-1] == '}'
}

// suffixToken returns the index in separatorTokens of the token that ends
// s, or -1; "and" and "or" must be words.
func suffixToken(s string) int {
	for k, t := range separatorTokens {
		if !strings.HasSuffix(s, t) {
			continue
		}
		if (t == "and" || t == "or") && len(s) > len(t) && isLetter(s[len(s)-len(t)-1]) {
			continue
		}
		if (t == "," || t == ";") && strings.HasSuffix(s, `\`+t) {
			continue // spacing, not a separator
		}
		return k
	}
	return -1
}

// onlySeparators reports whether s is made of separator tokens only.
func onlySeparators(s string) bool {
	for s != "" {
		k := suffixToken(s)
		if k < 0 {
			return false
		}
		s = s[:len(s)-len(separatorTokens[k])]
	}
	return true
}

// separatesItems reports whether s, made of separator tokens, holds one
// that separates items.
func separatesItems(s string) bool {
	for s != "" {
		k := suffixToken(s)
		if k < 4 {
			return k >= 0
		}
		s = s[:len(s)-len(separatorTokens[k])]
	}
	return false
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
