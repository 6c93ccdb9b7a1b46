package pyval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The pieces of Python's lexical grammar that the readers of Python text
// share (the BFCL class deriver, the tau-bench task reader, the chat
// template lexer): string literals with their prefixes and escapes,
// numbers, names and operators. Each reader keeps its own token stream;
// these functions say where a token ends and what a literal means, as
// CPython 3.11 does.

// ErrUnterminated is the error of a string literal that does not close.
var ErrUnterminated = errors.New("unterminated string literal")

// ScanString returns the index just past the string literal whose opening
// quote is at src[i]: a triple-quoted one ends at the next three quotes,
// another at the next quote on its line. A backslash escapes the byte
// after it (a quote, or a newline that continues the line). The error is
// ErrUnterminated.
func ScanString(src string, i int) (int, error) {
	q := src[i : i+1]
	if strings.HasPrefix(src[i:], q+q+q) {
		return scanQuoted(src, i+3, q+q+q, false)
	}
	return scanQuoted(src, i+1, q, true)
}

// ScanQuoted is ScanString for a literal that may hold newlines and has
// no triple quotes (Jinja's string literals).
func ScanQuoted(src string, i int) (int, error) {
	return scanQuoted(src, i+1, src[i:i+1], false)
}

// scanQuoted scans from j (inside the literal) to the end of closing
// quote q; oneLine makes a bare newline end the literal unterminated.
func scanQuoted(src string, j int, q string, oneLine bool) (int, error) {
	for j < len(src) {
		switch c := src[j]; {
		case c == '\\':
			j += 2
			continue
		case c == '\n' && oneLine:
			return 0, ErrUnterminated
		case strings.HasPrefix(src[j:], q):
			return j + len(q), nil
		}
		j++
	}
	return 0, ErrUnterminated
}

// IsStringPrefix reports whether w is a string prefix: r, u, b, f, or one
// of br, rb, fr, rf, in any case.
func IsStringPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// Literal is one string literal token taken apart.
type Literal struct {
	Raw, Bytes, F bool
	Body          string // the text between the quotes
}

// SplitLiteral takes apart a whole string literal token, prefix and
// quotes included (as ScanString delimits it after IsStringPrefix).
func SplitLiteral(text string) Literal {
	i := strings.IndexAny(text, `'"`)
	prefix := strings.ToLower(text[:i])
	rest := text[i:]
	q := 1
	if len(rest) >= 6 && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, `'''`)) {
		q = 3
	}
	return Literal{
		Raw:   strings.Contains(prefix, "r"),
		Bytes: strings.Contains(prefix, "b"),
		F:     strings.Contains(prefix, "f"),
		Body:  rest[q : len(rest)-q],
	}
}

// Value is the text of a literal that is not an f-string: its body as
// written when raw, else with its escapes decoded (Unescape).
func (l Literal) Value() (string, error) {
	if l.Raw {
		return l.Body, nil
	}
	return Unescape(l.Body)
}

// simpleEscapes are the one-character escapes; a backslash before a
// newline continues the line and writes nothing.
var simpleEscapes = [256]string{'\\': `\`, '\'': `'`, '"': `"`, 'a': "\a", 'b': "\b", 'f': "\f",
	'n': "\n", 'r': "\r", 't': "\t", 'v': "\v"}

// Unescape decodes Python's backslash escapes in the body of a str
// literal that is not raw: the one-character ones, backslash-newline,
// up to three octal digits, \xhh, \uhhhh and \Uhhhhhhhh. An unknown
// escape is kept as written. \N{...} escapes, lone surrogates and values
// past U+10FFFF have no Go string form and are errors.
func Unescape(s string) (string, error) {
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
		n, err := unescapeOne(&b, s[i+1:])
		if err != nil {
			return "", err
		}
		i += 1 + n
	}
	return b.String(), nil
}

// unescapeOne decodes the escape that follows a backslash at the start of
// s into b and returns how many bytes of s it used.
func unescapeOne(b *strings.Builder, s string) (int, error) {
	e := s[0]
	switch {
	case e == '\n':
		return 1, nil
	case simpleEscapes[e] != "":
		b.WriteString(simpleEscapes[e])
		return 1, nil
	case e >= '0' && e <= '7':
		j := 1
		for j < len(s) && j < 3 && s[j] >= '0' && s[j] <= '7' {
			j++
		}
		v, _ := strconv.ParseUint(s[:j], 8, 32)
		b.WriteRune(rune(v))
		return j, nil
	case e == 'x' || e == 'u' || e == 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
		if 1+n > len(s) {
			return 0, fmt.Errorf(`truncated \%c escape`, e)
		}
		hex := s[1 : 1+n]
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return 0, fmt.Errorf(`bad \%c escape %q`, e, hex)
		}
		if v >= 0xd800 && v < 0xe000 || v > utf8.MaxRune {
			return 0, fmt.Errorf(`escape \%c%s is not a Unicode scalar value`, e, hex)
		}
		b.WriteRune(rune(v))
		return 1 + n, nil
	case e == 'N':
		return 0, errors.New(`\N{...} escapes are not supported`)
	}
	b.WriteByte('\\') // kept as written; the next byte is read as text
	return 0, nil
}

// ScanNumber returns the index just past the numeric literal that starts
// at src[i] (a digit, or a '.' before one): 0x, 0o and 0b integers,
// decimals with a fraction and an exponent, an imaginary 'j', all with
// '_' separators. Its value is for the caller to check.
func ScanNumber(src string, i int) int {
	if len(src)-i > 1 && src[i] == '0' && strings.ContainsRune("xXoObB", rune(src[i+1])) {
		i += 2
		for i < len(src) && (isHexDigit(src[i]) || src[i] == '_') {
			i++
		}
		return i
	}
	digits := func() {
		for i < len(src) && (isDigit(src[i]) || src[i] == '_') {
			i++
		}
	}
	digits()
	if i < len(src) && src[i] == '.' {
		i++
		digits()
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			i = j
			digits()
		}
	}
	if i < len(src) && (src[i] == 'j' || src[i] == 'J') {
		i++
	}
	return i
}

// StartsNumber reports whether a numeric literal starts at src[i].
func StartsNumber(src string, i int) bool {
	return isDigit(src[i]) || src[i] == '.' && i+1 < len(src) && isDigit(src[i+1])
}

// ScanName returns the index just past the name (identifier: a letter or
// '_', then letters, digits and '_') that starts at src[i], or i when
// none does.
func ScanName(src string, i int) int {
	if r, _ := utf8.DecodeRuneInString(src[i:]); r != '_' && !unicode.IsLetter(r) {
		return i
	}
	for i < len(src) {
		r, n := utf8.DecodeRuneInString(src[i:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += n
	}
	return i
}

// operators lists Python's operators and delimiters, longest first so that
// the first match is the longest.
var operators = []string{
	"**=", "//=", ">>=", "<<=", "...",
	"->", ":=", "**", "//", ">>", "<<", "<=", ">=", "==", "!=",
	"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
	"(", ")", "[", "]", "{", "}", ",", ":", ";", ".",
	"+", "-", "*", "/", "%", "&", "|", "^", "~", "<", ">", "=", "@",
}

// Operator returns the longest Python operator or delimiter that s starts
// with, or "".
func Operator(s string) string {
	for _, op := range operators {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

// Constant returns the value of a Python constant name: true for "True",
// false for "False", nil for "None"; ok is false for any other name.
func Constant(name string) (v any, ok bool) {
	switch name {
	case "True":
		return true, true
	case "False":
		return false, true
	case "None":
		return nil, true
	}
	return nil, false
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
