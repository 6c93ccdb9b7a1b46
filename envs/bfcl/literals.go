package bfcl

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

func (p *parser) number() (any, error) {
	start := p.pos
	s := p.src
	if strings.HasPrefix(strings.ToLower(s[p.pos:]), "0x") {
		p.pos += 2
		for p.pos < len(s) && (isHex(s[p.pos]) || s[p.pos] == '_') {
			p.pos++
		}
		return p.parseInt(s[start+2:p.pos], 16)
	}
	isFloat := false
	digits := func() {
		for p.pos < len(s) && (s[p.pos] >= '0' && s[p.pos] <= '9' || s[p.pos] == '_') {
			p.pos++
		}
	}
	digits()
	if p.peek() == '.' {
		isFloat = true
		p.pos++
		digits()
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		isFloat = true
		p.pos++
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		digits()
	}
	text := strings.ReplaceAll(s[start:p.pos], "_", "")
	if !isFloat {
		if len(text) > 1 && text[0] == '0' && strings.Trim(text, "0") != "" {
			return nil, p.errf("leading zeros in decimal integer literals are not permitted")
		}
		return p.parseInt(text, 10)
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && !math.IsInf(f, 0)) {
		return nil, p.errf("bad or out of range float %q", text)
	}
	return f, nil
}

func (p *parser) parseInt(text string, base int) (any, error) {
	text = strings.ReplaceAll(text, "_", "")
	n, ok := new(big.Int).SetString(text, base)
	if !ok {
		return nil, p.errf("bad number %q", text)
	}
	if !n.IsInt64() {
		f, _ := new(big.Float).SetInt(n).Float64()
		if math.IsInf(f, 0) {
			return nil, p.errf("integer too large")
		}
		return f, nil // beyond int64: kept as the nearest float
	}
	return n.Int64(), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// strings parses one or more adjacent string literals and joins them.
func (p *parser) strings() (any, error) {
	var b strings.Builder
	for n := 0; ; n++ {
		p.spaceNL()
		raw := false
		if c := p.peek(); c == 'r' || c == 'R' || c == 'u' || c == 'U' {
			if p.pos+1 < len(p.src) && (p.src[p.pos+1] == '\'' || p.src[p.pos+1] == '"') {
				raw = c == 'r' || c == 'R'
				p.pos++
			}
		}
		if c := p.peek(); c != '\'' && c != '"' {
			if n == 0 {
				return nil, p.errf("expected a string")
			}
			return b.String(), nil
		}
		if err := p.stringLit(&b, raw); err != nil {
			return nil, err
		}
	}
}

func (p *parser) stringLit(b *strings.Builder, raw bool) error {
	q := p.src[p.pos : p.pos+1]
	if strings.HasPrefix(p.src[p.pos:], q+q+q) {
		q = q + q + q
	}
	p.pos += len(q)
	for {
		if p.pos >= len(p.src) {
			return p.errf("unterminated string literal")
		}
		if strings.HasPrefix(p.src[p.pos:], q) {
			p.pos += len(q)
			return nil
		}
		c := p.src[p.pos]
		if c == '\n' && len(q) == 1 {
			return p.errf("unterminated string literal")
		}
		if c != '\\' {
			r, n := utf8.DecodeRuneInString(p.src[p.pos:])
			b.WriteRune(r)
			p.pos += n
			continue
		}
		if raw {
			if p.pos+1 < len(p.src) {
				b.WriteString(p.src[p.pos : p.pos+2])
				p.pos += 2
			} else {
				p.pos++
			}
			continue
		}
		if err := p.escape(b); err != nil {
			return err
		}
	}
}

func (p *parser) escape(b *strings.Builder) error {
	p.pos++ // the backslash
	if p.pos >= len(p.src) {
		return p.errf("unterminated string literal")
	}
	c := p.src[p.pos]
	p.pos++
	simple := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '\'': "'", '"': "\"",
		'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '\n': ""}
	if s, ok := simple[c]; ok {
		b.WriteString(s)
		return nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width > 0 {
		if p.pos+width > len(p.src) {
			return p.errf("truncated \\%c escape", c)
		}
		n, err := strconv.ParseUint(p.src[p.pos:p.pos+width], 16, 32)
		if err != nil || n > unicode.MaxRune {
			return p.errf("bad \\%c escape", c)
		}
		p.pos += width
		b.WriteRune(rune(n))
		return nil
	}
	if c >= '0' && c <= '7' {
		n := int(c - '0')
		for i := 0; i < 2 && p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '7'; i++ {
			n = n*8 + int(p.src[p.pos]-'0')
			p.pos++
		}
		b.WriteRune(rune(n))
		return nil
	}
	b.WriteByte('\\') // unknown escapes stay as written
	b.WriteByte(c)
	return nil
}
