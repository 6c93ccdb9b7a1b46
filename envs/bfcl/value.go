package bfcl

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Values follow Python semantics. The dynamic types are:
//
//	nil      None
//	bool     bool
//	int64    int
//	float64  float
//	string   str
//	[]any    list (tuples decode to lists)
//	*Dict    dict, ordered by insertion, keys string or int64
//	Ellipsis the Ellipsis singleton
//	Repr     an object printed by its fixed Python repr (mpf, Decimal)

// Ellipsis is Python's Ellipsis object.
type Ellipsis struct{}

// Repr is a value that Python prints as the given text and that json.dumps
// cannot encode.
type Repr string

// Dict is an insertion-ordered map with string or int64 keys. Lookups are
// exact: int64(1) and "1" are different keys.
type Dict struct {
	keys []any
	m    map[any]any
}

// NewDict returns a dict holding the alternating key, value pairs.
func NewDict(kv ...any) *Dict {
	if len(kv)%2 != 0 {
		panic("bfcl: NewDict needs key, value pairs")
	}
	d := &Dict{m: make(map[any]any, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		d.Set(kv[i], kv[i+1])
	}
	return d
}

// Len returns the number of items.
func (d *Dict) Len() int { return len(d.keys) }

// Keys returns the keys in insertion order; the slice must not be modified.
func (d *Dict) Keys() []any { return d.keys }

// Get returns the value under k.
func (d *Dict) Get(k any) (any, bool) {
	k, ok := hashKey(k)
	if !ok {
		return nil, false
	}
	v, ok := d.m[k]
	return v, ok
}

// hashKey maps a key to its dict identity as Python hashes it: True is 1,
// 2.0 is 2. Lists and dicts are unhashable.
func hashKey(k any) (any, bool) {
	switch x := k.(type) {
	case string, int64, nil, Ellipsis, Repr:
		return k, true
	case bool:
		if x {
			return int64(1), true
		}
		return int64(0), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return int64(x), true
		}
		return x, true
	}
	return nil, false
}

// Has reports whether k is present.
func (d *Dict) Has(k any) bool { _, ok := d.Get(k); return ok }

// Set stores v under k; a new key goes last, an existing key keeps its place.
func (d *Dict) Set(k, v any) {
	if hk, ok := hashKey(k); !ok {
		panic(fmt.Sprintf("bfcl: unhashable dict key %T", k))
	} else if _, isBool := k.(bool); isBool {
		k = hk
	}
	if d.m == nil {
		d.m = map[any]any{}
	}
	if _, ok := d.m[k]; !ok {
		d.keys = append(d.keys, k)
	}
	d.m[k] = v
}

// Delete removes k if present.
func (d *Dict) Delete(k any) {
	k, ok := hashKey(k)
	if !ok {
		return
	}
	if _, ok := d.m[k]; !ok {
		return
	}
	delete(d.m, k)
	for i, x := range d.keys {
		if x == k {
			d.keys = append(d.keys[:i:i], d.keys[i+1:]...)
			break
		}
	}
}

// Str returns the string under k, or "" when absent or not a string.
func (d *Dict) Str(k any) string { s, _ := d.m[k].(string); return s }

// DeepCopy copies a value recursively; Ellipsis and Repr are immutable.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	case *Dict:
		out := &Dict{keys: make([]any, 0, len(x.keys)), m: make(map[any]any, len(x.keys))}
		for _, k := range x.keys {
			out.Set(k, DeepCopy(x.m[k]))
		}
		return out
	}
	return v
}

// FormatFloat prints f as Python's repr does: the shortest round-tripping
// digits, fixed notation for decimal exponents in [-4, 16), else exponent
// form with at least two exponent digits; integral values keep ".0".
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
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

// PyRepr returns repr(v) as Python prints it.
func PyRepr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

// PyStr returns str(v): strings as they are, everything else as repr.
func PyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return PyRepr(v)
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
		b.WriteString(reprString(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, e)
		}
		b.WriteByte(']')
	case *Dict:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, k)
			b.WriteString(": ")
			writeRepr(b, x.m[k])
		}
		b.WriteByte('}')
	case Ellipsis:
		b.WriteString("Ellipsis")
	case Repr:
		b.WriteString(string(x))
	default:
		panic(fmt.Sprintf("bfcl: repr of unsupported type %T", v))
	}
}

// reprString quotes s as Python's str.__repr__ does.
func reprString(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && !isPrintable(r):
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
	b.WriteByte(q)
	return b.String()
}

// isPrintable approximates Python's str.isprintable for non-ASCII runes.
func isPrintable(r rune) bool { return strconv.IsPrint(r) }

// errNotJSON reports a value that Python's json.dumps cannot encode.
type errNotJSON struct{ t string }

func (e errNotJSON) Error() string { return "Object of type " + e.t + " is not JSON serializable" }

// PyJSON encodes v as Python's json.dumps with default settings does:
// ", " and ": " separators, insertion order, non-ASCII escaped, int keys
// as strings. It fails for Ellipsis and Repr values.
func PyJSON(v any) (string, error) {
	var b strings.Builder
	if err := writeJSON(&b, v, true); err != nil {
		return "", err
	}
	return b.String(), nil
}

// PyJSONUnicode is PyJSON with ensure_ascii=False: non-ASCII characters are
// written as they are. Conformance records use it.
func PyJSONUnicode(v any) (string, error) {
	var b strings.Builder
	if err := writeJSON(&b, v, false); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJSON(b *strings.Builder, v any, ascii bool) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int64, int:
		writeRepr(b, x)
	case float64:
		switch {
		case math.IsNaN(x):
			b.WriteString("NaN")
		case math.IsInf(x, 1):
			b.WriteString("Infinity")
		case math.IsInf(x, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(FormatFloat(x))
		}
	case string:
		writeJSONString(b, x, ascii)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeJSON(b, e, ascii); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *Dict:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			switch kk := k.(type) {
			case string:
				writeJSONString(b, kk, ascii)
			default:
				var kb strings.Builder
				if err := writeJSON(&kb, kk, ascii); err != nil {
					return err
				}
				writeJSONString(b, kb.String(), ascii)
			}
			b.WriteString(": ")
			if err := writeJSON(b, x.m[k], ascii); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case Ellipsis:
		return errNotJSON{"ellipsis"}
	case Repr:
		return errNotJSON{"mpf"}
	default:
		panic(fmt.Sprintf("bfcl: json of unsupported type %T", v))
	}
	return nil
}

func writeJSONString(b *strings.Builder, s string, ascii bool) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r > 0x7e && !ascii:
			b.WriteRune(r)
		case r < 0x20 || (r > 0x7e && r <= 0xffff):
			fmt.Fprintf(b, `\u%04x`, r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// ResultString converts a method's return value to the string the checker
// compares: a str as is, a dict as Python JSON (its repr when JSON fails),
// anything else as its repr.
func ResultString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case *Dict:
		s, err := PyJSON(x)
		if err != nil {
			return PyRepr(x)
		}
		return s
	}
	return PyRepr(v)
}

// Equal is Python's == on values: numbers by value (bools count as 0 and
// 1), lists in order, dicts ignoring order.
func Equal(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.keys {
			w, ok := y.m[k]
			if !ok || !Equal(x.m[k], w) {
				return false
			}
		}
		return true
	case Ellipsis:
		_, ok := b.(Ellipsis)
		return ok
	case Repr:
		y, ok := b.(Repr)
		return ok && x == y
	}
	return false
}

// number returns a numeric value as float64 for comparison; big int64
// values compare exactly only when both sides are ints.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// sortedInts returns the int64 values of a list in ascending order.
func sortedInts(l []any) []any {
	out := append([]any(nil), l...)
	sort.Slice(out, func(i, j int) bool { return out[i].(int64) < out[j].(int64) })
	return out
}
