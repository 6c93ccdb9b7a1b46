package pyval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// DecodeJSON parses JSON text as json.loads does: objects become *Dict in
// source order, numbers with a fraction or exponent become float64 and the
// rest int64. A float literal beyond the float range reads as ±inf, as in
// Python; unlike json.loads, the non-standard NaN and Infinity literals
// are not accepted.
func DecodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, fmt.Errorf("pyval: decode json: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("pyval: decode json: trailing data after the first value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			d := NewDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				d.Set(kt.(string), v)
			}
			_, err := dec.Token()
			return d, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		s := t.String()
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if errors.Is(err, strconv.ErrRange) {
				return f, nil // Python reads an overflowing literal as ±inf
			}
			return f, err
		}
		return t.Int64()
	case string, bool, nil:
		return t, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// JSON encodes v as Python's json.dumps with default options: ", " and
// ": " separators, insertion order, non-ASCII escaped, int keys written as
// strings, floats in repr form (NaN and infinities as NaN, Infinity).
func JSON(v any) (string, error) {
	var b strings.Builder
	if err := writeJSON(&b, v, true); err != nil {
		return "", err
	}
	return b.String(), nil
}

// JSONUnicode is JSON with ensure_ascii=False: non-ASCII characters are
// written as they are.
func JSONUnicode(v any) (string, error) {
	var b strings.Builder
	if err := writeJSON(&b, v, false); err != nil {
		return "", err
	}
	return b.String(), nil
}

// MustJSON is JSON for values known to be encodable (decoded JSON and
// what tools build from it); it panics otherwise.
func MustJSON(v any) string {
	s, err := JSON(v)
	if err != nil {
		panic(err)
	}
	return s
}

func writeJSON(b *strings.Builder, v any, ascii bool) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64, int:
		writeRepr(b, x)
	case float64:
		b.WriteString(JSONFloat(x))
	case string:
		writeJSONString(b, x, ascii)
	case []any:
		return writeList(b, x, flat, func(e any) error { return writeJSON(b, e, ascii) })
	case *Dict:
		return writeDict(b, x, flat, func(k any) { writeKey(b, k, ascii) }, func(e any) error { return writeJSON(b, e, ascii) })
	case Ellipsis:
		return NotJSONError{"ellipsis"}
	case ReprValue:
		return NotJSONError{"mpf"}
	default:
		return fmt.Errorf("pyval: json: Object of type %T is not JSON serializable", v)
	}
	return nil
}

// JSONFloat is a float as json.dumps writes it: its repr (FormatFloat),
// NaN, Infinity or -Infinity.
func JSONFloat(x float64) string {
	if s, ok := nonFinite(x, "NaN", "Infinity"); ok {
		return s
	}
	return FormatFloat(x)
}

// nonFinite names x when it is NaN or infinite: nan, inf, or "-" and inf;
// ok is false for a finite x.
func nonFinite(x float64, nan, inf string) (s string, ok bool) {
	switch {
	case math.IsNaN(x):
		return nan, true
	case math.IsInf(x, 1):
		return inf, true
	case math.IsInf(x, -1):
		return "-" + inf, true
	}
	return "", false
}

// writeKey writes a dict key as json.dumps does: a string as it is, None
// as "null", a bool as "true" or "false", a float as its JSON number, an
// int as its digits in quotes.
func writeKey(b *strings.Builder, k any, ascii bool) {
	switch kk := k.(type) {
	case string:
		writeJSONString(b, kk, ascii)
	case nil:
		b.WriteString(`"null"`)
	case bool:
		b.WriteString(map[bool]string{true: `"true"`, false: `"false"`}[kk])
	case float64:
		b.WriteString(`"` + JSONFloat(kk) + `"`)
	default:
		writeJSONString(b, Repr(kk), ascii)
	}
}

// jsonEscapes are the two-character escapes json.dumps writes.
var jsonEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\b': `\b`, '\f': `\f`}

func writeJSONString(b *strings.Builder, s string, ascii bool) {
	b.WriteByte('"')
	for _, r := range s {
		esc, short := jsonEscapes[r]
		switch {
		case short:
			b.WriteString(esc)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r == 0x7f && ascii:
			b.WriteString(`\u007f`)
		case r > 0x7e && !ascii:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		case r > 0x7e:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
