package chat

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/artist-rl/artist/internal/pyval"
)

// canonicalize lexes a template source as Jinja2's lexer does with
// transformers' settings and returns an equivalent source for the engine
// in which nothing is left to its own lexing rules:
//
//   - newlines (\r\n, \r) become \n and one final newline is dropped
//     (keep_trailing_newline=False);
//   - whitespace control is applied: '-' markers, lstrip_blocks (spaces
//     before a block or comment tag that starts its line), trim_blocks
//     (the newline after a block or comment tag), '+' markers that turn
//     those off;
//   - every run of template text becomes a string literal printed by
//     {{ '...' }}, comments go and {% raw %} blocks become text, so the
//     engine's own whitespace handling has nothing to act on;
//   - every {{ expression }} prints through printFilter, as Python's str()
//     writes values (None, 1.0, ['a']), not as the engine does;
//   - string literals in tags are decoded with Python's escapes (\u00e9,
//     \x41, \r, ...) and written back with only \\ and \' escaped, the
//     escapes the engine reads;
//   - the tojson filter is renamed to tojsonFilter.
//
// Newlines that whitespace control removes are kept inside the next tag,
// so the engine's line numbers in errors stay those of the source.
func canonicalize(src string) (string, error) {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	src = strings.TrimSuffix(src, "\n")
	c := &canon{src: src, lineStart: true}
	c.out.Grow(len(src) + len(src)/4)
	for c.pos < len(src) {
		start := nextOpener(src, c.pos)
		if start < 0 {
			c.text(src[c.pos:])
			break
		}
		kind := src[start+1]
		i := start + 2
		var sign byte
		if i < len(src) && (src[i] == '-' || src[i] == '+') {
			sign = src[i]
			i++
		}
		rawEnd := -1
		if kind == '%' {
			rawEnd = matchRawBegin(src, i)
		}
		data, removed := leftControl(src[c.pos:start], sign, kind != '{', c.lineStart)
		c.text(data)
		c.pending += removed
		var err error
		switch {
		case rawEnd >= 0:
			err = c.rawBlock(start, rawEnd)
		case kind == '#':
			err = c.comment(start, i)
		default:
			err = c.tag(start, i, kind)
		}
		if err != nil {
			return "", err
		}
	}
	// Newlines removed at the end are dropped: no tag follows to hold them.
	return c.out.String(), nil
}

// canon is the state of one canonicalize: the source, the output, the
// position and the newlines removed but not yet written.
type canon struct {
	src       string
	out       strings.Builder
	pending   int // removed newlines not yet written
	pos       int
	lineStart bool // pos starts a line
}

// flush writes the pending newlines.
func (c *canon) flush() {
	c.out.WriteString(strings.Repeat("\n", c.pending))
	c.pending = 0
}

// text writes template text as a printed string literal.
func (c *canon) text(s string) {
	if s == "" {
		return
	}
	c.out.WriteString("{{")
	c.flush()
	c.out.WriteByte(' ')
	writeLiteral(&c.out, s)
	c.out.WriteString(" }}")
}

func (c *canon) line(n int) int { return 1 + strings.Count(c.src[:n], "\n") }

// rawBlock writes the content of the {% raw %} block whose opener starts
// at start and ends at rawEnd as text, up to the first endraw tag; there
// is no trim_blocks after {% raw %}.
func (c *canon) rawBlock(start, rawEnd int) error {
	src := c.src
	c.pending += strings.Count(src[start:rawEnd], "\n")
	c.pos = rawEnd
	c.lineStart = src[c.pos-1] == '\n'
	k, endSign, after := findEndRaw(src, c.pos)
	if k < 0 {
		return fmt.Errorf("line %d: raw block without {%% endraw %%}", c.line(start))
	}
	data, removed := leftControl(src[c.pos:k], endSign, true, c.lineStart)
	c.text(data)
	c.pending += removed
	c.pos, c.lineStart = after, src[after-1] == '\n'
	c.pending += strings.Count(src[k:after], "\n")
	return nil
}

// comment drops the comment whose opener starts at start and whose
// content starts at i, keeping its newlines pending.
func (c *canon) comment(start, i int) error {
	src := c.src
	j := strings.Index(src[i:], "#}")
	if j < 0 {
		return fmt.Errorf("line %d: unclosed comment", c.line(start))
	}
	j += i
	var closeSign byte
	if j > i && (src[j-1] == '-' || src[j-1] == '+') {
		closeSign = src[j-1]
	}
	c.pending += strings.Count(src[i:j], "\n")
	c.pos, c.lineStart = rightControl(src, j+2, closeSign, true, &c.pending)
	return nil
}

// tag writes the statement or expression tag whose opener starts at
// start and whose content starts at i; an expression prints through
// printFilter.
func (c *canon) tag(start, i int, kind byte) error {
	content, closeSign, end, err := scanTag(c.src, i, kind)
	if err != nil {
		return fmt.Errorf("line %d: %w", c.line(start), err)
	}
	if kind == '%' {
		c.out.WriteString("{%")
		c.flush()
		c.out.WriteString(content + "%}")
	} else {
		c.out.WriteString("{{")
		c.flush()
		c.out.WriteString("(" + content + ") | " + printFilter + " }}")
	}
	c.pos, c.lineStart = rightControl(c.src, end, closeSign, kind == '%', &c.pending)
	return nil
}

// nextOpener returns the index of the first "{{", "{%" or "{#" at or after
// from, or -1.
func nextOpener(src string, from int) int {
	for i := from; i+1 < len(src); i++ {
		if src[i] == '{' && (src[i+1] == '{' || src[i+1] == '%' || src[i+1] == '#') {
			return i
		}
	}
	return -1
}

// leftControl applies the whitespace control of the tag that follows text:
// '-' strips all its trailing whitespace; otherwise, for block and comment
// tags (lstrip) not marked '+', the spaces between the last line start and
// the tag. It returns the text and the number of newlines removed.
func leftControl(text string, sign byte, lstrip, lineStart bool) (string, int) {
	switch {
	case sign == '-':
		kept := strings.TrimRightFunc(text, pyIsSpace)
		return kept, strings.Count(text[len(kept):], "\n")
	case sign != '+' && lstrip:
		l := strings.LastIndexByte(text, '\n') + 1
		if (l > 0 || lineStart) && l < len(text) && strings.TrimLeftFunc(text[l:], pyIsSpace) == "" {
			return text[:l], 0
		}
	}
	return text, 0
}

// rightControl skips what a tag's end consumes after index end: with '-'
// all whitespace, for a block or comment without '+' one newline
// (trim_blocks). It counts the skipped newlines into pending and returns
// the new position and whether it starts a line.
func rightControl(src string, end int, sign byte, block bool, pending *int) (int, bool) {
	pos := end
	switch {
	case sign == '-':
		rest := strings.TrimLeftFunc(src[pos:], pyIsSpace)
		*pending += strings.Count(src[pos:len(src)-len(rest)], "\n")
		pos = len(src) - len(rest)
	case sign != '+' && block && pos < len(src) && src[pos] == '\n':
		*pending++
		pos++
	}
	return pos, src[pos-1] == '\n'
}

// matchRawBegin matches the rest of "{% raw %}" from i (after the opener
// and its sign): spaces, "raw", spaces, then "%}" or "-%}" and any
// whitespace. It returns the index after the match, or -1.
func matchRawBegin(src string, i int) int {
	j := skipSpace(src, i)
	if !strings.HasPrefix(src[j:], "raw") {
		return -1
	}
	j = skipSpace(src, j+3)
	switch {
	case strings.HasPrefix(src[j:], "-%}"):
		return skipSpace(src, j+3)
	case strings.HasPrefix(src[j:], "%}"):
		return j + 2
	}
	return -1
}

// findEndRaw finds the first "{% endraw %}" at or after from. It returns
// its index, the sign after its "{%", and the index after it (with its
// trim_blocks newline or '-' whitespace), or k = -1.
func findEndRaw(src string, from int) (k int, sign byte, after int) {
	for k = strings.Index(src[from:], "{%"); k >= 0; {
		k += from
		j := k + 2
		sign = 0
		if j < len(src) && (src[j] == '-' || src[j] == '+') {
			sign = src[j]
			j++
		}
		j = skipSpace(src, j)
		if strings.HasPrefix(src[j:], "endraw") {
			j = skipSpace(src, j+6)
			switch {
			case strings.HasPrefix(src[j:], "+%}"):
				return k, sign, j + 3
			case strings.HasPrefix(src[j:], "-%}"):
				return k, sign, skipSpace(src, j+3)
			case strings.HasPrefix(src[j:], "%}"):
				if j+2 < len(src) && src[j+2] == '\n' {
					return k, sign, j + 3
				}
				return k, sign, j + 2
			}
		}
		from = k + 2
		k = strings.Index(src[from:], "{%")
	}
	return -1, 0, 0
}

func skipSpace(src string, i int) int {
	return len(src) - len(strings.TrimLeftFunc(src[i:], pyIsSpace))
}

// scanTag reads an expression ({{) or statement ({%) tag whose content
// starts at i, up to its closer outside string literals. It returns the
// rewritten content (literals re-encoded, tojson renamed), the closer's
// sign ('-', '+' for statements, or 0) and the index after the closer.
func scanTag(src string, i int, kind byte) (string, byte, int, error) {
	var b strings.Builder
	closer := "}}"
	if kind == '%' {
		closer = "%}"
	}
	depth := 0 // open brackets: a closer inside them is an operator
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			lit, end, err := readLiteral(src, i)
			if err != nil {
				return "", 0, 0, err
			}
			writeLiteral(&b, lit)
			i = end
			continue
		case depth == 0 && strings.HasPrefix(src[i:], closer):
			return b.String(), 0, i + 2, nil
		case depth == 0 && c == '-' && strings.HasPrefix(src[i+1:], closer):
			return b.String(), '-', i + 3, nil
		case depth == 0 && c == '+' && kind == '%' && strings.HasPrefix(src[i+1:], closer):
			return b.String(), '+', i + 3, nil
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth = max(0, depth-1)
			// The engine ends a tag at the first "}}": keep two closing
			// braces apart.
			if c == '}' && strings.HasSuffix(b.String(), "}") {
				b.WriteByte(' ')
			}
		case c == '|':
			b.WriteByte(c)
			i++
			j := i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n') {
				j++
			}
			if name := "tojson"; strings.HasPrefix(src[j:], name) && (j+len(name) == len(src) || !isIdentByte(src[j+len(name)])) {
				b.WriteString(src[i:j])
				b.WriteString(tojsonFilter)
				i = j + len(name)
			}
			continue
		}
		b.WriteByte(c)
		i++
	}
	return "", 0, 0, errors.New("unclosed tag")
}

// readLiteral reads the Jinja string literal at src[i] (a quote) and
// decodes it as Jinja does: its body, each non-ASCII character first
// written as its backslashreplace escape, decoded with Python's
// "unicode-escape" rules (so that "\é" stays a backslash and the text
// "xe9"). It returns the value and the index after the closing quote.
func readLiteral(src string, i int) (string, int, error) {
	end, err := pyval.ScanQuoted(src, i)
	if err != nil {
		return "", 0, err
	}
	v, err := pyval.Unescape(backslashReplace(src[i+1 : end-1]))
	if err != nil {
		return "", 0, fmt.Errorf("string literal: %w", err)
	}
	return v, end, nil
}

// backslashReplace writes each non-ASCII character of s as Python's
// backslashreplace error handler does (\xhh, \uhhhh, \Uhhhhhhhh); bytes
// that are not UTF-8 stay as they are.
func backslashReplace(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r < utf8.RuneSelf || r == utf8.RuneError && size == 1:
			b.WriteByte(s[i])
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// writeLiteral writes s as a string literal the engine reads back as s.
func writeLiteral(b *strings.Builder, s string) {
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] == '\'' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
}

// pyIsSpace is Python's str.isspace for one character, which Jinja's \s
// and str.strip use: Unicode White_Space plus U+001C..U+001F.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
