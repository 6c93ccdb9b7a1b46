package pyval

import (
	"math"
	"strconv"
)

// IsNumber reports whether v is an int or a float; bools count, as in
// Python's isinstance(v, (int, float)).
func IsNumber(v any) bool {
	switch v.(type) {
	case int64, float64, bool:
		return true
	}
	return false
}

func isInt(v any) bool {
	switch v.(type) {
	case int64, bool:
		return true
	}
	return false
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case bool:
		if x {
			return 1
		}
	case float64:
		return int64(x)
	}
	return 0
}

// Float returns a number as float64 (float(v)); non-numbers give 0.
func Float(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// Add is a + b on numbers.
func Add(a, b any) any {
	if isInt(a) && isInt(b) {
		return toInt(a) + toInt(b)
	}
	return Float(a) + Float(b)
}

// Sub is a - b on numbers.
func Sub(a, b any) any {
	if isInt(a) && isInt(b) {
		return toInt(a) - toInt(b)
	}
	return Float(a) - Float(b)
}

// Mul is a * b on numbers.
func Mul(a, b any) any {
	if isInt(a) && isInt(b) {
		return toInt(a) * toInt(b)
	}
	return Float(a) * Float(b)
}

// Neg is -a; a bool becomes an int.
func Neg(a any) any {
	if isInt(a) {
		return -toInt(a)
	}
	return -Float(a)
}

// Abs is abs(a); a bool becomes an int.
func Abs(a any) any {
	if isInt(a) {
		if n := toInt(a); n < 0 {
			return -n
		}
		return toInt(a)
	}
	return math.Abs(Float(a))
}

// Less is a < b on numbers.
func Less(a, b any) bool {
	if isInt(a) && isInt(b) {
		return toInt(a) < toInt(b)
	}
	return Float(a) < Float(b)
}

// Round is round(a, n) for n >= 0: an int stays the same int, a float is
// rounded from its exact binary value with ties to even (round(2.675, 2)
// is 2.67, round(0.125, 2) is 0.12).
func Round(a any, n int) any {
	if isInt(a) {
		return toInt(a)
	}
	f := Float(a)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'f', n, 64), 64)
	if err != nil {
		return f
	}
	if r == 0 && math.Signbit(f) {
		return math.Copysign(0, -1)
	}
	return r
}

// Equal is Python's == on values: numbers by value across bool, int and
// float, lists in order, dicts by their items ignoring order.
func Equal(a, b any) bool {
	if IsNumber(a) {
		if !IsNumber(b) {
			return false
		}
		if isInt(a) && isInt(b) {
			return toInt(a) == toInt(b)
		}
		return Float(a) == Float(b)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		return sameList(x, b, Equal)
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for _, k := range x.keys {
			w, ok := y.Get(k)
			if !ok || !Equal(x.at(k), w) {
				return false
			}
		}
		return true
	case Ellipsis:
		_, ok := b.(Ellipsis)
		return ok
	case ReprValue:
		y, ok := b.(ReprValue)
		return ok && x == y
	}
	return false
}

// sameList reports whether b is a list of x's length whose items match
// x's in order by same.
func sameList(x []any, b any, same func(a, b any) bool) bool {
	y, ok := b.([]any)
	if !ok || len(x) != len(y) {
		return false
	}
	for i := range x {
		if !same(x[i], y[i]) {
			return false
		}
	}
	return true
}

// Identical reports whether a and b are equal and also agree in every
// number's type (1 and 1.0 differ, True and 1 differ) and every dict's key
// order: whether their JSON and repr texts are the same.
func Identical(a, b any) bool {
	switch x := a.(type) {
	case []any:
		return sameList(x, b, Identical)
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		if x == y {
			return true
		}
		for i, k := range x.keys {
			if !Identical(y.keys[i], k) || !Identical(x.at(k), y.at(k)) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && (x == y && math.Signbit(x) == math.Signbit(y) || math.IsNaN(x) && math.IsNaN(y))
	}
	return a == b
}

// IsInt reports whether v is a Python int (bools count).
func IsInt(v any) bool { return isInt(v) }

// Int returns a number as int64, truncating a float (int(v)); non-numbers
// give 0.
func Int(v any) int64 { return toInt(v) }
