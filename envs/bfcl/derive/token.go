package derive

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/artist-rl/artist/internal/pyval"
)

// tokKind is the kind of a Python token.
type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tIndent
	tDedent
	tName
	tNumber
	tString
	tOp
)

// token is one Python token. For strings, text is the whole literal,
// prefix and quotes included.
type token struct {
	kind tokKind
	text string
	line int
}

// lexer turns Python source into tokens the way Python's tokenizer does:
// NEWLINE ends a logical line, INDENT and DEDENT track indentation, and
// line breaks inside brackets or after a backslash join lines.
type lexer struct {
	src     string
	pos     int
	line    int
	depth   int // bracket nesting
	base    int // depth outside any bracket: 1 for an f-string field
	indents []int
	toks    []token
}

// tokenize splits src into tokens. Line endings are normalised to "\n" and a
// leading byte order mark is dropped, as Python does when it reads a file.
func tokenize(src string) ([]token, error) { return tokenizeAt(src, 0) }

// tokenizeAt tokenizes with an initial bracket depth; depth 1 reads an
// expression the way the inside of brackets is read, line breaks and
// indentation included.
func tokenizeAt(src string, depth int) ([]token, error) {
	src = strings.TrimPrefix(src, "\ufeff")
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	lx := &lexer{src: src, line: 1, indents: []int{0}, depth: depth, base: depth}
	if err := lx.run(); err != nil {
		return nil, err
	}
	return lx.toks, nil
}

func (lx *lexer) errorf(format string, a ...any) error {
	return fmt.Errorf("line %d: %s", lx.line, fmt.Sprintf(format, a...))
}

func (lx *lexer) emit(k tokKind, text string) {
	lx.toks = append(lx.toks, token{kind: k, text: text, line: lx.line})
}

func (lx *lexer) run() error {
	atLineStart := true
	for {
		if atLineStart && lx.depth == 0 {
			blank, err := lx.indentation()
			if err != nil {
				return err
			}
			if blank {
				if lx.pos >= len(lx.src) {
					break
				}
				continue
			}
			atLineStart = false
		}
		if lx.pos >= len(lx.src) {
			break
		}
		c := lx.src[lx.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			lx.pos++
		case c == '#':
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
		case c == '\\':
			if lx.pos+1 >= len(lx.src) || lx.src[lx.pos+1] != '\n' {
				return lx.errorf("unexpected character after line continuation")
			}
			lx.pos += 2
			lx.line++
		case c == '\n':
			if lx.depth == 0 {
				lx.emit(tNewline, "")
				atLineStart = true
			}
			lx.pos++
			lx.line++
		case c == '"' || c == '\'':
			if err := lx.str(lx.pos); err != nil {
				return err
			}
		case pyval.StartsNumber(lx.src, lx.pos):
			end := pyval.ScanNumber(lx.src, lx.pos)
			lx.emit(tNumber, lx.src[lx.pos:end])
			lx.pos = end
		case pyval.ScanName(lx.src, lx.pos) > lx.pos:
			start := lx.pos
			lx.pos = pyval.ScanName(lx.src, lx.pos)
			word := lx.src[start:lx.pos]
			if lx.pos < len(lx.src) && (lx.src[lx.pos] == '"' || lx.src[lx.pos] == '\'') && pyval.IsStringPrefix(word) {
				if err := lx.str(start); err != nil {
					return err
				}
				continue
			}
			lx.emit(tName, word)
		default:
			if err := lx.operator(); err != nil {
				return err
			}
		}
	}
	if n := len(lx.toks); lx.base == 0 && n > 0 && lx.toks[n-1].kind != tNewline && lx.toks[n-1].kind != tDedent {
		lx.emit(tNewline, "")
	}
	for len(lx.indents) > 1 {
		lx.indents = lx.indents[:len(lx.indents)-1]
		lx.emit(tDedent, "")
	}
	lx.emit(tEOF, "")
	return nil
}

// indentation measures the indentation of the line at pos and emits INDENT
// or DEDENT tokens. Blank and comment-only lines are consumed whole and
// reported as blank.
func (lx *lexer) indentation() (blank bool, err error) {
	col := 0
	for lx.pos < len(lx.src) {
		switch lx.src[lx.pos] {
		case ' ':
			col++
		case '\t':
			col = (col/8 + 1) * 8
		case '\f':
			col = 0
		default:
			goto measured
		}
		lx.pos++
	}
measured:
	if lx.pos >= len(lx.src) {
		return true, nil
	}
	switch lx.src[lx.pos] {
	case '#':
		for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
			lx.pos++
		}
		fallthrough
	case '\n':
		if lx.pos < len(lx.src) {
			lx.pos++
			lx.line++
		}
		return true, nil
	}
	top := lx.indents[len(lx.indents)-1]
	switch {
	case col > top:
		lx.indents = append(lx.indents, col)
		lx.emit(tIndent, "")
	case col < top:
		for col < lx.indents[len(lx.indents)-1] {
			lx.indents = lx.indents[:len(lx.indents)-1]
			lx.emit(tDedent, "")
		}
		if col != lx.indents[len(lx.indents)-1] {
			return false, lx.errorf("unindent does not match any outer indentation level")
		}
	}
	return false, nil
}

// str scans a string literal whose prefix starts at start and whose quote is
// at lx.pos.
func (lx *lexer) str(start int) error {
	end, err := pyval.ScanString(lx.src, lx.pos)
	if err != nil {
		return lx.errorf("%v", err)
	}
	lx.toks = append(lx.toks, token{kind: tString, text: lx.src[start:end], line: lx.line})
	lx.line += strings.Count(lx.src[lx.pos:end], "\n")
	lx.pos = end
	return nil
}

func (lx *lexer) operator() error {
	op := pyval.Operator(lx.src[lx.pos:])
	if op == "" {
		r, _ := utf8.DecodeRuneInString(lx.src[lx.pos:])
		return lx.errorf("invalid character %q", r)
	}
	switch op {
	case "(", "[", "{":
		lx.depth++
	case ")", "]", "}":
		if lx.depth == lx.base {
			return lx.errorf("unmatched %q", op)
		}
		lx.depth--
	}
	lx.emit(tOp, op)
	lx.pos += len(op)
	return nil
}
