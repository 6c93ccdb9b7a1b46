package bfcl

import (
	"fmt"
	"math"
	"math/bits"
)

// mathAPI is MathAPI; it has no state.
type mathAPI struct{ d *Data }

func newMath(d *Data, cfg *Dict, long bool) (api, error) { return &mathAPI{d: d}, nil }

func (m *mathAPI) state() *Dict { return NewDict() }

func result(v any) (any, error) { return NewDict("result", v), nil }

func (m *mathAPI) methods() map[string]method {
	nums := []param{req("numbers", kAny)}
	ab := []param{req("a", kAny), req("b", kAny)}
	conv := []param{req("value", kAny), req("unit_in", kAny), req("unit_out", kAny)}
	return map[string]method{
		"logarithm":              {[]param{req("value", kNum), req("base", kNum), req("precision", kAny)}, m.logarithm},
		"mean":                   {nums, m.listOp("mean", "Cannot calculate mean of an empty list", mean)},
		"standard_deviation":     {nums, m.listOp("std", "Cannot calculate standard deviation of an empty list", stddev)},
		"si_unit_conversion":     {conv, m.siConversion},
		"imperial_si_conversion": {conv, m.imperialConversion},
		"add":                    {ab, binary(numAdd)},
		"subtract":               {ab, binary(numSub)},
		"multiply":               {ab, binary(numMul)},
		"divide":                 {ab, divide},
		"power":                  {[]param{req("base", kAny), req("exponent", kAny)}, power},
		"square_root":            {[]param{req("number", kAny), req("precision", kAny)}, squareRoot},
		"absolute_value":         {[]param{req("number", kAny)}, absolute},
		"round_number":           {[]param{req("number", kAny), opt("decimal_places", kAny, int64(0))}, roundNumber},
		"percentage":             {[]param{req("part", kAny), req("whole", kAny)}, percentage},
		"min_value":              {nums, m.listOp("min", "Cannot find minimum of an empty list", extreme(false))},
		"max_value":              {nums, m.listOp("max", "Cannot find maximum of an empty list", extreme(true))},
		"sum_values":             {nums, m.listOp("sum", "Cannot calculate sum of an empty list", pySum)},
	}
}

// listOp wraps a reduction over a non-empty list of numbers.
func (m *mathAPI) listOp(_, empty string, f func([]any) any) func(args) (any, error) {
	return func(a args) (any, error) {
		l, ok := a["numbers"].([]any)
		if ok && len(l) == 0 || a["numbers"] == nil {
			return errDict(empty), nil
		}
		if !ok {
			return errDict("All elements in the list must be numbers"), nil
		}
		for _, x := range l {
			if !isNumber(x) {
				return errDict("All elements in the list must be numbers"), nil
			}
		}
		return result(f(l))
	}
}

// pySum adds left to right from int 0, as Python 3.11's sum does.
func pySum(l []any) any {
	var s any = int64(0)
	for _, x := range l {
		s = numAdd(s, x)
	}
	return s
}

func mean(l []any) any { return numDiv(pySum(l), int64(len(l))) }

func stddev(l []any) any {
	mu := numDiv(pySum(l), int64(len(l)))
	var s any = int64(0)
	for _, x := range l {
		d := toFloat(x) - mu
		s = numAdd(s, d*d)
	}
	return math.Sqrt(numDiv(s, int64(len(l))))
}

func extreme(max bool) func([]any) any {
	return func(l []any) any {
		best := l[0]
		for _, x := range l[1:] {
			if (max && numLess(best, x)) || (!max && numLess(x, best)) {
				best = x
			}
		}
		return best
	}
}

func binary(f func(a, b any) any) func(args) (any, error) {
	return func(a args) (any, error) {
		if !isNumber(a["a"]) || !isNumber(a["b"]) {
			return errDict("Both inputs must be numbers"), nil
		}
		return result(f(a["a"], a["b"]))
	}
}

func divide(a args) (any, error) {
	if !isNumber(a["a"]) || !isNumber(a["b"]) {
		return errDict("Both inputs must be numbers"), nil
	}
	if toFloat(a["b"]) == 0 {
		return errDict("Cannot divide by zero"), nil
	}
	return result(numDiv(a["a"], a["b"]))
}

func power(a args) (any, error) {
	b, e := a["base"], a["exponent"]
	if !isNumber(b) || !isNumber(e) {
		return errDict("Both inputs must be numbers"), nil
	}
	if isInt(b) && isInt(e) && toInt(e) >= 0 {
		return intPower(toInt(b), toInt(e))
	}
	return result(math.Pow(toFloat(b), toFloat(e)))
}

// maxIntDigits is Python's default limit on converting an int to a
// string: the reference fails to encode a larger result.
const maxIntDigits = 4300

// intPower is base**exp for ints, by repeated squaring. A result of more
// than maxIntDigits digits fails as the reference's JSON encoding does,
// without being computed; one past int64 but within the limit, which the
// reference prints exactly, comes out as the nearest float (values here
// are at most 64-bit).
func intPower(base, exp int64) (any, error) {
	ab := math.Abs(float64(base))
	if ab > 1 && float64(exp)*math.Log10(ab) > maxIntDigits {
		return nil, raisef("Exceeds the limit (%d digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit", maxIntDigits)
	}
	r, sq := int64(1), base
	for e := exp; e > 0; e >>= 1 {
		if e&1 == 1 {
			if hi, lo := bits.Mul64(uint64(absInt(r)), uint64(absInt(sq))); hi != 0 || lo > math.MaxInt64 {
				return result(math.Pow(float64(base), float64(exp)))
			}
			r *= sq
		}
		if e > 1 {
			if hi, lo := bits.Mul64(uint64(absInt(sq)), uint64(absInt(sq))); hi != 0 || lo > math.MaxInt64 {
				return result(math.Pow(float64(base), float64(exp)))
			}
			sq *= sq
		}
	}
	return result(r)
}

func absInt(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func absolute(a args) (any, error) {
	switch x := a["number"].(type) {
	case int64:
		if x < 0 {
			x = -x
		}
		return result(x)
	case bool:
		return result(toInt(x))
	case float64:
		return result(math.Abs(x))
	}
	return errDict("Input must be a number"), nil
}

func roundNumber(a args) (any, error) {
	n, p := a["number"], a["decimal_places"]
	if p == nil && isNumber(n) { // round(number, None) is round(number), an int
		return roundToInt(n)
	}
	if !isNumber(n) || !isInt(p) {
		return errDict("First input must be a number, second input must be an integer"), nil
	}
	if isInt(n) {
		if toInt(p) >= 0 {
			return result(toInt(n))
		}
		if toInt(p) < -18 { // 10**19 exceeds every int64
			return result(int64(0))
		}
		f := pyRound(toFloat(n)/math.Pow(10, float64(-toInt(p))), 0) * math.Pow(10, float64(-toInt(p)))
		return result(int64(f))
	}
	return result(pyRound(toFloat(n), int(toInt(p))))
}

func percentage(a args) (any, error) {
	if !isNumber(a["part"]) || !isNumber(a["whole"]) {
		return errDict("Both inputs must be numbers"), nil
	}
	if toFloat(a["whole"]) == 0 {
		return errDict("Whole value cannot be zero"), nil
	}
	return result(numDiv(a["part"], a["whole"]) * 100)
}

func (m *mathAPI) siConversion(a args) (any, error) {
	v, in, out := a["value"], PyStr(a["unit_in"]), PyStr(a["unit_out"])
	if !isNumber(v) {
		return errDict("Value must be a number"), nil
	}
	factors := m.d.table("math_si_to_meters").(*Dict)
	fi, ok1 := factors.Get(a["unit_in"])
	fo, ok2 := factors.Get(a["unit_out"])
	if !ok1 || !ok2 {
		return errDict(fmt.Sprintf("Conversion from '%s' to '%s' is not supported", in, out)), nil
	}
	r := toFloat(numMul(numMul(v, fi), 1/toFloat(fo)))
	if math.IsInf(r, 0) {
		return errDict("Conversion resulted in a value too large to represent"), nil
	}
	return result(r)
}

func (m *mathAPI) imperialConversion(a args) (any, error) {
	v, in, out := a["value"], PyStr(a["unit_in"]), PyStr(a["unit_out"])
	if !isNumber(v) {
		return errDict("Value must be a number"), nil
	}
	if Equal(a["unit_in"], a["unit_out"]) {
		return result(v)
	}
	f, ok := m.d.table("math_imperial_factors").(*Dict).Get(in + "_to_" + out)
	if !ok {
		return errDict(fmt.Sprintf("Conversion from '%s' to '%s' is not supported", in, out)), nil
	}
	var r any
	switch {
	case in == "celsius" && out == "fahrenheit":
		r = numAdd(numMul(v, 1.8), int64(32))
	case in == "fahrenheit" && out == "celsius":
		r = numMul(numSub(v, int64(32)), 5.0/9.0)
	default:
		r = numMul(v, f)
	}
	return result(r)
}

// roundToInt is Python's round(n) of a number: an int, ties to even; the
// float infinities and NaN raise as in Python.
func roundToInt(n any) (any, error) {
	if isInt(n) {
		return result(toInt(n))
	}
	f := toFloat(n)
	switch {
	case math.IsNaN(f):
		return nil, raise{"cannot convert float NaN to integer"}
	case math.IsInf(f, 0):
		return nil, raise{"cannot convert float infinity to integer"}
	case math.Abs(f) >= 1<<63:
		return nil, raise{"int too large for this port"} // Python's ints have no bound; no call needs one
	}
	return result(int64(math.RoundToEven(f)))
}
