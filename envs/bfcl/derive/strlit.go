package derive

import (
	"fmt"
	"strings"

	"github.com/artist-rl/artist/internal/pyval"
)

// fstringParts splits the body of an f-string (Python 3.11 rules) into
// literal text, as *pyConst, and replacement fields, as *pyFormattedValue.
// line is used in error messages.
func fstringParts(body string, raw bool, line int) ([]expr, error) {
	var parts []expr
	var lit strings.Builder
	flush := func() error {
		if lit.Len() == 0 {
			return nil
		}
		s := lit.String()
		lit.Reset()
		if !raw {
			var err error
			if s, err = pyval.Unescape(s); err != nil {
				return err
			}
		}
		parts = append(parts, &pyConst{Value: s, Line: line})
		return nil
	}
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '{' && strings.HasPrefix(body[i:], "{{"), c == '}' && strings.HasPrefix(body[i:], "}}"):
			lit.WriteByte(c)
			i += 2
		case c == '}':
			return nil, fmt.Errorf("line %d: f-string: single '}' is not allowed", line)
		case c == '{':
			if err := flush(); err != nil {
				return nil, err
			}
			fv, n, err := replacementField(body[i:], raw, line)
			if err != nil {
				return nil, err
			}
			parts = append(parts, fv)
			i += n
		default:
			lit.WriteByte(c)
			i++
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return parts, nil
}

// replacementField parses the field that starts with '{' at s[0] and
// returns it with the number of bytes it spans.
func replacementField(s string, raw bool, line int) (*pyFormattedValue, int, error) {
	end := exprEnd(s, 1)
	if end >= len(s) {
		return nil, 0, fmt.Errorf("line %d: f-string: expecting '}'", line)
	}
	src := s[1:end]
	if t := strings.TrimRight(src, " "); strings.HasSuffix(t, "=") && !strings.HasSuffix(t, "==") &&
		!strings.HasSuffix(t, "!=") && !strings.HasSuffix(t, "<=") && !strings.HasSuffix(t, ">=") {
		return nil, 0, fmt.Errorf("line %d: f-string: self-documenting fields ({x=}) are not supported", line)
	}
	x, err := parseExpression(src, line)
	if err != nil {
		return nil, 0, fmt.Errorf("f-string: %w", err)
	}
	fv := &pyFormattedValue{Value: x, Line: line}
	i := end
	if s[i] == '!' {
		if i+1 >= len(s) || !strings.ContainsRune("rsa", rune(s[i+1])) {
			return nil, 0, fmt.Errorf("line %d: f-string: invalid conversion character", line)
		}
		fv.Conv = s[i+1]
		i += 2
	}
	if i < len(s) && s[i] == ':' {
		depth, j := 0, i+1
		for ; j < len(s); j++ {
			if s[j] == '{' {
				depth++
			} else if s[j] == '}' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		spec, err := fstringParts(s[i+1:j], raw, line)
		if err != nil {
			return nil, 0, err
		}
		fv.Spec = &pyJoinedStr{Parts: spec, Line: line}
		i = j
	}
	if i >= len(s) || s[i] != '}' {
		return nil, 0, fmt.Errorf("line %d: f-string: expecting '}'", line)
	}
	return fv, i + 1, nil
}

// exprEnd returns the index of the '}', ':' or '!' (not "!=") that ends the
// expression of a replacement field starting at s[i], skipping nested
// brackets and string literals; len(s) when there is none.
func exprEnd(s string, i int) int {
	depth := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			q := string(c)
			if strings.HasPrefix(s[i:], q+q+q) {
				q += q + q
			}
			j := strings.Index(s[i+len(q):], q)
			if j < 0 {
				return len(s)
			}
			i += len(q) + j + len(q)
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}' && depth > 0:
			depth--
		case depth == 0 && (c == '}' || c == ':' || c == '!' && !strings.HasPrefix(s[i:], "!=")):
			return i
		}
		i++
	}
	return len(s)
}
