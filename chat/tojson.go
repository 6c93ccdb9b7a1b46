package chat

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ardanlabs/jinja"

	"github.com/artist-rl/artist/internal/pyval"
)

// tojsonFilter is the name the templates' tojson filter is renamed to (see
// canonicalize): the engine's own tojson cannot be replaced, and a filter
// the engine does not know is looked up among the render's variables.
const tojsonFilter = "_chat_tojson"

// jsonOptions are the arguments of transformers' tojson filter:
// tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False),
// a call of Python's json.dumps with them.
type jsonOptions struct {
	ensureASCII bool
	indent      *string // nil: no newlines
	itemSep     string
	keySep      string
	sortKeys    bool
}

// tojson is the tojson filter: Python's json.dumps with transformers'
// defaults (ensure_ascii=False: non-ASCII text is written as is).
func tojson(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), fmt.Errorf("tojson: no value")
	}
	if len(args) > 5 {
		return jinja.Undefined(), fmt.Errorf("tojson: %d positional arguments, want at most 4", len(args)-1)
	}
	// Positional arguments after the value, in the filter's order.
	named := map[string]jinja.Value{}
	for i, name := range []string{"ensure_ascii", "indent", "separators", "sort_keys"}[:len(args)-1] {
		named[name] = args[i+1]
	}
	for k, v := range kwargs {
		if _, dup := named[k]; dup {
			return jinja.Undefined(), fmt.Errorf("tojson: argument %s given twice", k)
		}
		named[k] = v
	}
	o := jsonOptions{itemSep: ", ", keySep: ": "}
	for k, v := range named {
		switch k {
		case "ensure_ascii":
			o.ensureASCII = v.IsTruthy()
		case "sort_keys":
			o.sortKeys = v.IsTruthy()
		case "indent":
			switch {
			case v.IsNone() || v.IsUndefined():
			case v.IsInt():
				s := strings.Repeat(" ", max(0, int(v.AsInt())))
				o.indent = &s
			case v.IsString():
				s := v.AsString()
				o.indent = &s
			default:
				return jinja.Undefined(), fmt.Errorf("tojson: indent must be an integer or a string")
			}
		case "separators":
		default:
			return jinja.Undefined(), fmt.Errorf("tojson: unexpected argument %s", k)
		}
	}
	if o.indent != nil {
		o.itemSep = ","
	}
	if v, ok := named["separators"]; ok && !v.IsNone() && !v.IsUndefined() {
		if !v.IsList() || v.AsList().Len() != 2 || !v.AsList().Get(0).IsString() || !v.AsList().Get(1).IsString() {
			return jinja.Undefined(), fmt.Errorf("tojson: separators must be two strings")
		}
		o.itemSep, o.keySep = v.AsList().Get(0).AsString(), v.AsList().Get(1).AsString()
	}
	var b strings.Builder
	if err := writeJSON(&b, args[0], o, 0); err != nil {
		return jinja.Undefined(), fmt.Errorf("tojson: %w", err)
	}
	return jinja.NewString(b.String()), nil
}

// writeJSON writes v as Python's json.dumps does with options o, at nesting
// depth depth.
func writeJSON(b *strings.Builder, v jinja.Value, o jsonOptions, depth int) error {
	switch {
	case v.IsNone():
		b.WriteString("null")
	case v.IsBool():
		if v.AsBool() {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case v.IsInt():
		b.WriteString(strconv.FormatInt(v.AsInt(), 10))
	case v.IsFloat():
		b.WriteString(pyval.JSONFloat(v.AsFloat()))
	case v.IsString():
		writeJSONString(b, v.AsString(), o.ensureASCII)
	case v.IsList():
		items := v.AsList().Items
		if len(items) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, item := range items {
			if i > 0 {
				b.WriteString(o.itemSep)
			}
			newline(b, o, depth+1)
			if err := writeJSON(b, item, o, depth+1); err != nil {
				return err
			}
		}
		newline(b, o, depth)
		b.WriteByte(']')
	case v.IsDict():
		d := v.AsDict()
		keys := d.OrderedKeys()
		if len(keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		if o.sortKeys {
			sort.Strings(keys) // code point order, as Python sorts str keys
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(o.itemSep)
			}
			newline(b, o, depth+1)
			writeJSONString(b, k, o.ensureASCII)
			b.WriteString(o.keySep)
			item, _ := d.Get(k)
			if err := writeJSON(b, item, o, depth+1); err != nil {
				return err
			}
		}
		newline(b, o, depth)
		b.WriteByte('}')
	case v.IsUndefined():
		return fmt.Errorf("an undefined value is not JSON serializable")
	default:
		return fmt.Errorf("a callable is not JSON serializable")
	}
	return nil
}

func newline(b *strings.Builder, o jsonOptions, depth int) {
	if o.indent == nil {
		return
	}
	b.WriteByte('\n')
	for range depth {
		b.WriteString(*o.indent)
	}
}

const hexDigits = "0123456789abcdef"

// writeJSONString writes s as a JSON string the way Python's json.dumps
// does: \" \\ \n \r \t \b \f, \u00XX for the other control characters,
// everything else as is, or with ensureASCII every non-ASCII character as
// \uXXXX (UTF-16 surrogate pairs beyond the BMP). Bytes that are not UTF-8
// count as U+FFFD.
func writeJSONString(b *strings.Builder, s string, ensureASCII bool) {
	b.WriteByte('"')
	u16 := func(r rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hexDigits[(r>>shift)&0xf])
		}
	}
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				u16(r)
			case r < utf8.RuneSelf || !ensureASCII:
				b.WriteRune(r)
			case r > 0xffff:
				r -= 0x10000
				u16(0xd800 + (r>>10)&0x3ff)
				u16(0xdc00 + r&0x3ff)
			default:
				u16(r)
			}
		}
	}
	b.WriteByte('"')
}
