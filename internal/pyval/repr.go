package pyval

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// FormatFloat prints f as Python's float repr: the shortest round-tripping
// digits, fixed notation for decimal exponents in [-4, 16), else exponent
// form with at least two exponent digits; integral values keep ".0".
func FormatFloat(f float64) string {
	if s, ok := nonFinite(f, "nan", "inf"); ok {
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddddde±XX
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expS, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expS)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	switch {
	case exp < -4 || exp >= 16:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		out += fmt.Sprintf("e%s%02d", sign, exp)
	case exp < 0:
		out = "0." + strings.Repeat("0", -exp-1) + digits
	case exp+1 >= len(digits):
		out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	default:
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		out = "-" + out
	}
	return out
}

// Repr returns repr(v). Lists print as lists; a value of any other Go type
// is a programmer error and panics.
func Repr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

// Str returns str(v): a string as it is, anything else as its repr.
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}

func writeRepr(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(FormatFloat(x))
	case string:
		b.WriteString(ReprString(x))
	case []any:
		_ = writeList(b, x, flat, reprItem(b))
	case *Dict:
		item := reprItem(b)
		_ = writeDict(b, x, flat, func(k any) { _ = item(k) }, item)
	case Ellipsis:
		b.WriteString("Ellipsis")
	case ReprValue:
		b.WriteString(string(x))
	default:
		panic(fmt.Sprintf("pyval: repr of unsupported type %T", v))
	}
}

// reprItem returns a writer of the repr of an item to b, for writeList
// and writeDict; it never fails.
func reprItem(b *strings.Builder) func(any) error {
	return func(e any) error {
		writeRepr(b, e)
		return nil
	}
}

// layout places the items of a non-empty list or dict: open after its
// opening bracket, sep between items, close before its closing bracket.
type layout struct{ open, sep, close string }

// flat is the layout of repr and of json.dumps without indent.
var flat = layout{sep: ", "}

// writeList writes x as repr and json.dumps do, each item by item, laid
// out by l; an empty list is []. It stops at the first error of item.
func writeList(b *strings.Builder, x []any, l layout, item func(any) error) error {
	if len(x) == 0 {
		b.WriteString("[]")
		return nil
	}
	b.WriteString("[" + l.open)
	for i, e := range x {
		if i > 0 {
			b.WriteString(l.sep)
		}
		if err := item(e); err != nil {
			return err
		}
	}
	b.WriteString(l.close + "]")
	return nil
}

// writeDict writes d as repr and json.dumps do, in insertion order: each
// key by key, then ": " and its value by item, entries laid out by l; an
// empty dict is {}. It stops at the first error of item.
func writeDict(b *strings.Builder, d *Dict, l layout, key func(any), item func(any) error) error {
	if len(d.keys) == 0 {
		b.WriteString("{}")
		return nil
	}
	b.WriteString("{" + l.open)
	for i, k := range d.keys {
		if i > 0 {
			b.WriteString(l.sep)
		}
		key(k)
		b.WriteString(": ")
		if err := item(d.at(k)); err != nil {
			return err
		}
	}
	b.WriteString(l.close + "}")
	return nil
}

// ReprString quotes s as Python's str.__repr__ does: single quotes unless
// s holds a ' and no ", the usual escapes, \xhh for other control
// characters, non-printable non-ASCII as \xhh, \uhhhh or \Uhhhhhhhh.
// Printability of non-ASCII runes follows Go's unicode tables, which may
// differ from Python's for the newest Unicode characters.
func ReprString(s string) string {
	q := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteRune(q)
	for _, r := range s {
		switch {
		case r == q || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case reprEscapes[r] != "":
			b.WriteString(reprEscapes[r])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && !printable(r):
			switch {
			case r <= 0xff:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteRune(q)
	return b.String()
}

// reprEscapes are the escapes str.__repr__ writes for control
// characters other than \xhh.
var reprEscapes = map[rune]string{'\n': `\n`, '\r': `\r`, '\t': `\t`}

// printable approximates str.isprintable for non-ASCII runes: Python
// counts every separator except the ASCII space as non-printable.
func printable(r rune) bool {
	return strconv.IsPrint(r) && !unicode.Is(unicode.Zs, r)
}
