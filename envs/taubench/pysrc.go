package taubench

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A small reader of the Python modules that hold the upstream task lists
// (tasks_*.py, rules.py): imports, then NAME = <literal> statements, where
// the literals are strings (adjacent ones concatenated), numbers, True,
// False, None, lists, tuples, dicts and calls with keyword arguments
// (Task(...), Action(...)). Anything else is an error naming its line.

type pyTok struct {
	kind string // "str", "num", "name", "op", "nl", "eof"
	text string // the op or name; the decoded value of a string
	num  any
	line int
}

type pyLexer struct {
	src   string
	pos   int
	line  int
	depth int
	toks  []pyTok
}

func lexPython(src string) ([]pyTok, error) {
	l := &pyLexer{src: src, line: 1}
	for {
		t, err := l.next()
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", l.line, err)
		}
		l.toks = append(l.toks, t)
		if t.kind == "eof" {
			return l.toks, nil
		}
	}
}

func (l *pyLexer) next() (pyTok, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\n':
			l.pos++
			l.line++
			if l.depth == 0 {
				return pyTok{kind: "nl", line: l.line - 1}, nil
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			l.pos++
		case c == '\\' && strings.HasPrefix(l.src[l.pos:], "\\\n"):
			l.pos += 2
			l.line++
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == '"' || c == '\'':
			return l.str("")
		case c >= '0' && c <= '9' || c == '.' && l.pos+1 < len(l.src) && l.src[l.pos+1] >= '0' && l.src[l.pos+1] <= '9':
			return l.number()
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			start := l.pos
			for l.pos < len(l.src) && isNameByte(l.src[l.pos]) {
				l.pos++
			}
			name := l.src[start:l.pos]
			if l.pos < len(l.src) && (l.src[l.pos] == '"' || l.src[l.pos] == '\'') {
				return l.str(strings.ToLower(name))
			}
			return pyTok{kind: "name", text: name, line: l.line}, nil
		default:
			if strings.ContainsRune("([{", rune(c)) {
				l.depth++
			} else if strings.ContainsRune(")]}", rune(c)) {
				l.depth--
			}
			if !strings.ContainsRune("()[]{},:=.-+;*", rune(c)) {
				return pyTok{}, fmt.Errorf("unexpected character %q", c)
			}
			l.pos++
			return pyTok{kind: "op", text: string(c), line: l.line}, nil
		}
	}
	return pyTok{kind: "eof", line: l.line}, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (l *pyLexer) number() (pyTok, error) {
	start := l.pos
	isFloat := false
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c >= '0' && c <= '9' || c == '_':
		case c == '.':
			isFloat = true
		case c == 'e' || c == 'E':
			isFloat = true
			if l.pos+1 < len(l.src) && (l.src[l.pos+1] == '+' || l.src[l.pos+1] == '-') {
				l.pos++
			}
		default:
			goto done
		}
		l.pos++
	}
done:
	text := strings.ReplaceAll(l.src[start:l.pos], "_", "")
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return pyTok{}, fmt.Errorf("bad float literal %q", text)
		}
		return pyTok{kind: "num", num: f, line: l.line}, nil
	}
	if len(text) > 1 && text[0] == '0' && strings.Trim(text, "0") != "" {
		return pyTok{}, fmt.Errorf("leading zeros in decimal integer literal %q", text)
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return pyTok{}, fmt.Errorf("int literal %q does not fit 64 bits", text)
	}
	return pyTok{kind: "num", num: n, line: l.line}, nil
}

// str reads a string literal after its prefix (r, u or none).
func (l *pyLexer) str(prefix string) (pyTok, error) {
	raw := strings.Contains(prefix, "r")
	if strings.Trim(prefix, "ru") != "" {
		return pyTok{}, fmt.Errorf("string prefix %q is not supported (only r and u)", prefix)
	}
	line := l.line
	q := l.src[l.pos : l.pos+1]
	if strings.HasPrefix(l.src[l.pos:], q+q+q) {
		q = q + q + q
	}
	l.pos += len(q)
	var b strings.Builder
	for {
		if l.pos >= len(l.src) {
			return pyTok{}, fmt.Errorf("unterminated string starting on line %d", line)
		}
		if strings.HasPrefix(l.src[l.pos:], q) {
			l.pos += len(q)
			return pyTok{kind: "str", text: b.String(), line: line}, nil
		}
		c := l.src[l.pos]
		switch {
		case c == '\n' && len(q) == 1:
			return pyTok{}, fmt.Errorf("unterminated string starting on line %d", line)
		case c == '\\' && raw:
			b.WriteString(l.src[l.pos : l.pos+2])
			l.pos += 2
		case c == '\\':
			if err := l.escape(&b); err != nil {
				return pyTok{}, err
			}
		default:
			if c == '\n' {
				l.line++
			}
			r, n := utf8.DecodeRuneInString(l.src[l.pos:])
			b.WriteRune(r)
			l.pos += n
		}
	}
}

var simpleEscapes = map[byte]string{'\\': "\\", '\'': "'", '"': "\"", 'n': "\n", 't': "\t", 'r': "\r",
	'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '\n': ""}

func (l *pyLexer) escape(b *strings.Builder) error {
	if l.pos+1 >= len(l.src) {
		return fmt.Errorf("backslash at the end of the file")
	}
	c := l.src[l.pos+1]
	if s, ok := simpleEscapes[c]; ok {
		b.WriteString(s)
		l.pos += 2
		if c == '\n' {
			l.line++
		}
		return nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	switch {
	case width > 0:
		hex := l.src[l.pos+2 : min(len(l.src), l.pos+2+width)]
		n, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || len(hex) != width {
			return fmt.Errorf("bad \\%c escape", c)
		}
		b.WriteRune(rune(n))
		l.pos += 2 + width
	case c >= '0' && c <= '7':
		j := l.pos + 1
		for j < len(l.src) && j < l.pos+4 && l.src[j] >= '0' && l.src[j] <= '7' {
			j++
		}
		n, _ := strconv.ParseUint(l.src[l.pos+1:j], 8, 32)
		b.WriteRune(rune(n))
		l.pos = j
	case c == 'N':
		return fmt.Errorf("\\N{...} escapes are not supported")
	default:
		b.WriteByte('\\') // Python keeps an unknown escape as it is
		l.pos++
	}
	return nil
}
