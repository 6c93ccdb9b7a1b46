package derive

import (
	"bytes"
	"fmt"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/internal/pyval"
)

// compact is json.dumps(v, ensure_ascii=False) with Python's default
// separators.
func compact(v any) (string, error) {
	s, err := bfcl.PyJSONUnicode(v)
	if err != nil {
		return "", fmt.Errorf("derive: %w", err)
	}
	return s, nil
}

// writeTwoLevel writes an object of objects and lists with one line per
// top-level key and one line per second-level item, each item compact:
// the layout of reference_tables.json. The text ends with a newline.
func writeTwoLevel(d *bfcl.Dict) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range d.Keys() {
		key, err := compact(keyString(k))
		if err != nil {
			return nil, err
		}
		v, _ := d.Get(k)
		var open, close string
		var items []string
		switch x := v.(type) {
		case *bfcl.Dict:
			open, close = "{", "}"
			for _, kk := range x.Keys() {
				ks, err := compact(keyString(kk))
				if err != nil {
					return nil, err
				}
				vv, _ := x.Get(kk)
				vs, err := compact(vv)
				if err != nil {
					return nil, err
				}
				items = append(items, ks+": "+vs)
			}
		case []any:
			open, close = "[", "]"
			for _, e := range x {
				s, err := compact(e)
				if err != nil {
					return nil, err
				}
				items = append(items, s)
			}
		default:
			return nil, fmt.Errorf("derive: table %s is not an object or a list", key)
		}
		b.WriteString(" " + key + ": " + open)
		if len(items) > 0 {
			for j, it := range items {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString("\n  " + it)
			}
			b.WriteString("\n ")
		}
		b.WriteString(close)
		if i < d.Len()-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// writeIndented is json.dumps(v, ensure_ascii=False, indent=1): the layout
// of long_context_extensions.json, with no final newline.
func writeIndented(v any) ([]byte, error) {
	s, err := pyval.JSONIndentUnicode(v, 1)
	if err != nil {
		return nil, fmt.Errorf("derive: %w", err)
	}
	return []byte(s), nil
}

// keyString is the text json.dumps writes for a dict key: a str as it is,
// an int in decimal, a float by its repr, None as null.
func keyString(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case nil:
		return "null"
	}
	return bfcl.PyRepr(k)
}
