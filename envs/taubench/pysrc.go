package taubench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/internal/pyval"
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
			return l.str(l.pos)
		case pyval.StartsNumber(l.src, l.pos):
			return l.number()
		case pyval.ScanName(l.src, l.pos) > l.pos:
			start := l.pos
			l.pos = pyval.ScanName(l.src, l.pos)
			if l.pos < len(l.src) && (l.src[l.pos] == '"' || l.src[l.pos] == '\'') {
				return l.str(start)
			}
			return pyTok{kind: "name", text: l.src[start:l.pos], line: l.line}, nil
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

// number reads a decimal int or float literal (pyval.ScanNumber).
func (l *pyLexer) number() (pyTok, error) {
	end := pyval.ScanNumber(l.src, l.pos)
	text := strings.ReplaceAll(l.src[l.pos:end], "_", "")
	l.pos = end
	if strings.ContainsAny(text, "xXoObBjJ") {
		return pyTok{}, fmt.Errorf("number literal %q is not supported (only decimal ints and floats)", text)
	}
	if strings.ContainsAny(text, ".eE") {
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

// str reads the string literal whose prefix (none, r or u) starts at
// start and whose quote is at l.pos, decoded.
func (l *pyLexer) str(start int) (pyTok, error) {
	prefix := l.src[start:l.pos]
	if prefix != "" && (!pyval.IsStringPrefix(prefix) || strings.Trim(strings.ToLower(prefix), "ru") != "") {
		return pyTok{}, fmt.Errorf("string prefix %q is not supported (only r and u)", strings.ToLower(prefix))
	}
	line := l.line
	end, err := pyval.ScanString(l.src, l.pos)
	if err != nil {
		return pyTok{}, fmt.Errorf("unterminated string starting on line %d", line)
	}
	text := l.src[start:end]
	l.line += strings.Count(l.src[l.pos:end], "\n")
	l.pos = end
	v, err := pyval.SplitLiteral(text).Value()
	if err != nil {
		return pyTok{}, err
	}
	return pyTok{kind: "str", text: v, line: line}, nil
}
