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

// writeIndent writes v as json.dumps with indent does, each nesting level
// indented by one more unit; nl is the newline and indentation of v's own
// level.
func writeIndent(b *strings.Builder, v any, unit, nl string, ascii bool) error {
	inner := nl + unit
	l := layout{open: inner, sep: "," + inner, close: nl}
	item := func(e any) error { return writeIndent(b, e, unit, inner, ascii) }
	switch x := v.(type) {
	case []any:
		return writeList(b, x, l, item)
	case *Dict:
		return writeDict(b, x, l, func(k any) { writeKey(b, k, ascii) }, item)
	}
	return writeJSON(b, v, ascii)
}
