package bfcl

import (
	"github.com/artist-rl/artist/internal/pyval"
	"math"
	"strconv"
	"strings"
)

// Python's dynamic typing where the reference declares an int but does
// not check it: the value the call passed flows on, and a TypeError or
// ValueError arises where Python would raise one, with Python's message.

// errSliceIndex is the TypeError of a slice bound that is not an int.
const errSliceIndex = "slice indices must be integers or None or have an __index__ method"

// greaterThanInt is Python's v > n for an int n: numbers (bools count)
// compare by value; anything else is a TypeError.
func greaterThanInt(v any, n int64) (bool, error) {
	switch x := v.(type) {
	case int64, bool:
		return toInt(x) > n, nil
	case float64:
		return x > float64(n), nil // NaN compares false, ∞ greater
	}
	return false, raisef("'>' not supported between instances of '%s' and 'int'", pyval.TypeName(v))
}

// pyInt is Python's int(v): an int or bool as it is, a float truncated
// towards zero, a string of digits (spaces, a sign and underscores
// between digits allowed) parsed. It returns the message of the
// exception int(v) raises otherwise.
func pyInt(v any) (int64, string) {
	switch x := v.(type) {
	case int64, bool:
		return toInt(x), ""
	case float64:
		switch {
		case math.IsNaN(x):
			return 0, "cannot convert float NaN to integer"
		case math.IsInf(x, 0):
			return 0, "cannot convert float infinity to integer"
		case math.Abs(x) >= 1<<63:
			return 0, "int too large for this port" // Python has no bound; no call needs one
		}
		return int64(x), ""
	case string:
		if n, ok := parseIntLiteral(x); ok {
			return n, ""
		}
		return 0, "invalid literal for int() with base 10: " + PyRepr(x)
	}
	return 0, "int() argument must be a string, a bytes-like object or a real number, not '" + pyval.TypeName(v) + "'"
}

// parseIntLiteral reads a decimal int as int() does: surrounding
// whitespace, an optional sign, digits with single underscores between.
func parseIntLiteral(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || digits == "" || digits[0] == '_' || digits[len(digits)-1] == '_' || strings.Contains(digits, "__") {
		return 0, false
	}
	n, err := strconv.ParseInt(t[:len(t)-len(digits)]+strings.ReplaceAll(digits, "_", ""), 10, 64)
	return n, err == nil
}

// compare is Python's a op b for op one of <, <= and > on numbers (bools
// count); anything else is the TypeError Python raises.
func compare(op string, a, b any) (bool, error) {
	if !isNumber(a) || !isNumber(b) {
		return false, raisef("'%s' not supported between instances of '%s' and '%s'", op, pyval.TypeName(a), pyval.TypeName(b))
	}
	switch op {
	case "<":
		return numLess(a, b), nil
	case "<=":
		return !numLess(b, a) && !isNaN(a) && !isNaN(b), nil
	case ">":
		return numLess(b, a), nil
	}
	panic("bfcl: compare: unknown operator " + op)
}

func isNaN(v any) bool { f, ok := v.(float64); return ok && math.IsNaN(f) }

// inRange is Python's lo <= v <= hi, raising as Python does when v is not
// a number.
func inRange(lo, v, hi any) (bool, error) {
	ok, err := compare("<=", lo, v)
	if err != nil || !ok {
		return false, err
	}
	return compare("<=", v, hi)
}
