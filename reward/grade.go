package reward

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
func Extract(response string, f rollout.Format) (answer string, ok bool) {
	text := dropBlocks(response, rollout.Open(f.Output), rollout.Close(f.Output))
	if s, ok := lastBlock(text, rollout.Open(f.Answer), rollout.Close(f.Answer)); ok {
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
// matches a '{' at i, or -1. It runs in one pass.
func matchBraces(s string) []int {
	match := make([]int, len(s))
	var stack []int
	for i := 0; i < len(s); i++ {
		match[i] = -1
		switch s[i] {
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
// matched, or by at least one space and a token that runs to the next
// space or dollar sign.
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
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '$' {
				j++
			}
			if j > i {
				return s[i:j], true
			}
		}
	}
	return "", false
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

// Equal reports whether pred and gold are the same answer under math
// equivalence. Both are normalised first (see normalize): math delimiters,
// dollar signs, a \boxed{} or \fbox{} around the whole answer, \text{} and
// similar wrappers, LaTeX spacing, \left and \right, degree signs, units
// (a trailing \text{...} after a number, or a known unit word), a base
// subscript (204_5 is 204) and trailing full stops go; \dfrac and \tfrac
// are \frac; whitespace goes. Equal normalised strings are equal. Otherwise
// both are read as structured answers and compared by these rules:
//
//   - numbers are exact rationals: integers, decimals, thousands separators
//     (1,234), fractions a/b, \frac{a}{b}, \frac12, mixed numbers
//     (1\frac{1}{2}); 0.333 is not 1/3;
//   - a percentage p% equals p% and, against a plain number, both p and
//     p/100 (so 50\% equals 50 and 0.5, while 50 and 0.5 differ);
//   - other expressions (roots, \pi, e, i, trigonometric and logarithmic
//     functions, factorials, binomials, floors, absolute values, variables)
//     are equal exactly when both evaluate over the rationals, else when
//     they agree within a relative 1e-9 over the complex numbers, once for
//     constants and at eight fixed random points for variables (\sqrt{12}
//     equals 2\sqrt{3}, x^2-1 equals (x-1)(x+1)); the points are positive,
//     so identities that need a sign (\sqrt{x^2} = x) are accepted, and
//     degrees are dropped before any function sees them (\sin 30^\circ is
//     the sine of 30 radians);
//   - v = x (v a variable or f(x)) is the value x, so x = 5 equals 5, but
//     two named values of different names differ; v \in S is S;
//   - other equations are equal when their sides' differences are
//     proportional (x+y=1 equals 2x+2y=2);
//   - tuples and intervals compare item by item and must have the same
//     brackets: (1,2] is not (1,2); a single parenthesised item is that
//     item;
//   - comma-separated lists and \{...\} are unordered sets of solutions,
//     a \pm b is the pair {a+b, a-b}, and unions of intervals are
//     unordered;
//   - matrices compare cell by cell; a one-column or one-row matrix equals
//     the tuple of its cells;
//   - ∞ equals only ∞ of the same sign;
//   - anything else is text, equal when the strings are, ignoring ASCII
//     case.
//
// An answer that normalises to the empty string, or is longer than
// MaxAnswerLen, is never equal. Equal is symmetric, deterministic and safe
// for concurrent use; it never panics. Its time is bounded: one comparison
// spends at most stepBudget steps of work and answers false when they run
// out (about 10 ms at worst on answers of MaxAnswerLen bytes built to be
// slow, tens of microseconds on benchmark answers).
func Equal(pred, gold string) bool {
	if len(pred) > MaxAnswerLen || len(gold) > MaxAnswerLen {
		return false
	}
	p, g := normalize(pred), normalize(gold)
	if p == "" || g == "" {
		return false
	}
	if p == g {
		return true
	}
	if p > g { // the same work in either argument order: symmetric by construction
		p, g = g, p
	}
	b := &budget{left: stepBudget}
	return same(parseValue(p, b, 0), parseValue(g, b, 0), b)
}
