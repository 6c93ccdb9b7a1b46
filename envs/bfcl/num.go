package bfcl

import "math"

// Python arithmetic on int64/float64 values: int op int stays int (except
// true division), any float operand gives a float.

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

func toFloat(v any) float64 {
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

func numAdd(a, b any) any {
	if isInt(a) && isInt(b) {
		return toInt(a) + toInt(b)
	}
	return toFloat(a) + toFloat(b)
}

func numSub(a, b any) any {
	if isInt(a) && isInt(b) {
		return toInt(a) - toInt(b)
	}
	return toFloat(a) - toFloat(b)
}

func numMul(a, b any) any {
	if isInt(a) && isInt(b) {
		return toInt(a) * toInt(b)
	}
	return toFloat(a) * toFloat(b)
}

// numDiv is Python's true division; the caller rules out a zero divisor.
func numDiv(a, b any) float64 {
	if isInt(a) && isInt(b) {
		// Python divides ints exactly and rounds once.
		x, y := toInt(a), toInt(b)
		if math.Abs(float64(x)) < 1<<53 && math.Abs(float64(y)) < 1<<53 {
			return float64(x) / float64(y)
		}
	}
	return toFloat(a) / toFloat(b)
}

func numLess(a, b any) bool {
	if isInt(a) && isInt(b) {
		return toInt(a) < toInt(b)
	}
	return toFloat(a) < toFloat(b)
}

// isNumber reports whether v is an int or float (bool included, as in
// Python's isinstance(v, (int, float))).
func isNumber(v any) bool {
	switch v.(type) {
	case int64, float64, bool:
		return true
	}
	return false
}
