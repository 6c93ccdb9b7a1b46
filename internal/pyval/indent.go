package pyval

import "strings"

// JSONIndent encodes v as Python's json.dumps(v, indent=n) does: each
// element on its own line indented n spaces per level, "," and ": "
// separators, empty lists and dicts as [] and {}, non-ASCII escaped, no
// trailing newline.
func JSONIndent(v any, n int) (string, error) {
	var b strings.Builder
	if err := writeIndent(&b, v, strings.Repeat(" ", n), "\n", true); err != nil {
		return "", err
	}
	return b.String(), nil
}

// JSONIndentUnicode is JSONIndent with ensure_ascii=False: non-ASCII
// characters are written as they are.
func JSONIndentUnicode(v any, n int) (string, error) {
	var b strings.Builder
	if err := writeIndent(&b, v, strings.Repeat(" ", n), "\n", false); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeIndent(b *strings.Builder, v any, unit, nl string, ascii bool) error {
	inner := nl + unit
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
			if err := writeIndent(b, e, unit, inner, ascii); err != nil {
				return err
			}
		}
		b.WriteString(nl + "]")
	case *Dict:
		if x.Len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(inner)
			writeKey(b, k, ascii)
			b.WriteString(": ")
			if err := writeIndent(b, x.at(k), unit, inner, ascii); err != nil {
				return err
			}
		}
		b.WriteString(nl + "}")
	default:
		return writeJSON(b, v, ascii)
	}
	return nil
}
