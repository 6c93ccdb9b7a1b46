package chat

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/ardanlabs/jinja"

	"github.com/artist-rl/artist/internal/pyval"
)

// printFilter is the filter canonicalize applies to every {{ expression }}
// so that values print as Python's str() writes them, as Jinja2 does.
const printFilter = "_chat_str"

// printValue is printFilter.
func printValue(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) != 1 {
		return jinja.Undefined(), fmt.Errorf("print: %d values", len(args))
	}
	return jinja.NewString(pyStr(args[0])), nil
}

// pyStr is str(v) in Python; an undefined value prints as "" (Jinja2's
// Undefined).
func pyStr(v jinja.Value) string {
	switch {
	case v.IsUndefined():
		return ""
	case v.IsString():
		return v.AsString()
	}
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

// writeRepr writes repr(v) as Python does for the JSON-like values
// templates handle; lists are written as Python lists (the engine has no
// tuples) and callables by name.
func writeRepr(b *strings.Builder, v jinja.Value) {
	switch {
	case v.IsUndefined():
		b.WriteString("Undefined")
	case v.IsNone():
		b.WriteString("None")
	case v.IsBool():
		if v.AsBool() {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case v.IsInt():
		b.WriteString(strconv.FormatInt(v.AsInt(), 10))
	case v.IsFloat():
		b.WriteString(pyval.JSONFloat(v.AsFloat())) // repr(float), as json.dumps writes it
	case v.IsString():
		writeStrRepr(b, v.AsString())
	case v.IsList():
		b.WriteByte('[')
		for i, item := range v.AsList().Items {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, item)
		}
		b.WriteByte(']')
	case v.IsDict():
		d := v.AsDict()
		b.WriteByte('{')
		for i, k := range d.OrderedKeys() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeStrRepr(b, k)
			b.WriteString(": ")
			item, _ := d.Get(k)
			writeRepr(b, item)
		}
		b.WriteByte('}')
	default:
		b.WriteString(v.String())
	}
}

// writeStrRepr writes Python's repr of a str: single quotes unless the
// text has a single quote and no double quote; \\, the quote, \t \n \r
// escaped; other non-printable characters as \xhh, \uhhhh or \Uhhhhhhhh.
func writeStrRepr(b *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
}
