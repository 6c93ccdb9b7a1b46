package bfcl

import (
	"github.com/artist-rl/artist/internal/pyval"

	"sort"
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

// The Python values of the ports are internal/pyval's: one implementation
// of dicts, repr and json.dumps for every benchmark port.
type (
	// Ellipsis is Python's Ellipsis object.
	Ellipsis = pyval.Ellipsis
	// Repr is a value that Python prints as the given text and that
	// json.dumps cannot encode.
	Repr = pyval.ReprValue
	// Dict is an insertion-ordered map with Python's key hashing.
	Dict = pyval.Dict
)

// NewDict builds a Dict from alternating keys and values.
func NewDict(kv ...any) *Dict { return pyval.NewDict(kv...) }

// DeepCopy copies a value recursively; Ellipsis and Repr are immutable.
func DeepCopy(v any) any { return pyval.DeepCopy(v) }

// FormatFloat writes f as Python's float repr does.
func FormatFloat(f float64) string { return pyval.FormatFloat(f) }

// PyRepr returns repr(v).
func PyRepr(v any) string { return pyval.Repr(v) }

// PyStr returns str(v): a string as it is, anything else as its repr.
func PyStr(v any) string { return pyval.Str(v) }

// PyJSON encodes v as Python's json.dumps with default settings does:
// ", " and ": " separators, insertion order, non-ASCII escaped, int keys
// as strings. It fails for Ellipsis and Repr values.
func PyJSON(v any) (string, error) { return pyval.JSON(v) }

// PyJSONUnicode is PyJSON with ensure_ascii=False: non-ASCII characters are
// written as they are. Conformance records use it.
func PyJSONUnicode(v any) (string, error) { return pyval.JSONUnicode(v) }

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
// 1), lists in order, dicts ignoring order (internal/pyval.Equal).
func Equal(a, b any) bool { return pyval.Equal(a, b) }

// sortedInts returns the int64 values of a list in ascending order.
func sortedInts(l []any) []any {
	out := append([]any(nil), l...)
	sort.Slice(out, func(i, j int) bool { return out[i].(int64) < out[j].(int64) })
	return out
}
