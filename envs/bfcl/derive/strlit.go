package derive

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// strLit is one string literal token taken apart.
type strLit struct {
	raw, bytes, f bool
	body          string // the text between the quotes
}

// splitLiteral takes a string token apart into its prefix flags and body.
func splitLiteral(text string) strLit {
	i := strings.IndexAny(text, `'"`)
	prefix := strings.ToLower(text[:i])
	rest := text[i:]
	q := 1
	if len(rest) >= 6 && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, `'''`)) {
		q = 3
	}
	return strLit{
		raw:   strings.Contains(prefix, "r"),
		bytes: strings.Contains(prefix, "b"),
		f:     strings.Contains(prefix, "f"),
		body:  rest[q : len(rest)-q],
	}
}

// unescape decodes Python's backslash escapes in a (non-raw) str literal.
// \N{...} escapes and lone surrogates have no Go representation and are
// errors.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		e := s[i+1]
		i += 2
		switch e {
		case '\n':
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i - 1
			for j < len(s) && j < i+2 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i-1:j], 8, 32)
			b.WriteRune(rune(v))
			i = j
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+n > len(s) {
				return "", fmt.Errorf(`truncated \%c escape`, e)
			}
			v, err := strconv.ParseUint(s[i:i+n], 16, 32)
			if err != nil {
				return "", fmt.Errorf(`invalid \%c escape %q`, e, s[i:i+n])
			}
			if v >= 0xd800 && v < 0xe000 || v > utf8.MaxRune {
				return "", fmt.Errorf(`escape \%c%s is not a Unicode scalar value`, e, s[i:i+n])
			}
			b.WriteRune(rune(v))
			i += n
		case 'N':
			return "", fmt.Errorf(`\N{...} escapes are not supported`)
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String(), nil
}

// stringValue decodes one non-f string literal.
func stringValue(l strLit) (string, error) {
	if l.raw {
		return l.body, nil
	}
	return unescape(l.body)
}

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
			if s, err = unescape(s); err != nil {
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
