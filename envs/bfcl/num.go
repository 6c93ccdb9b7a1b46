package bfcl

import (
	"math"

	"github.com/artist-rl/artist/internal/pyval"
)

// Python arithmetic on int64/float64 values (internal/pyval): int op int
// stays int (except true division), any float operand gives a float.

func isInt(v any) bool      { return pyval.IsInt(v) }
func toInt(v any) int64     { return pyval.Int(v) }
func toFloat(v any) float64 { return pyval.Float(v) }
func numAdd(a, b any) any   { return pyval.Add(a, b) }
func numSub(a, b any) any   { return pyval.Sub(a, b) }
func numMul(a, b any) any   { return pyval.Mul(a, b) }
func numLess(a, b any) bool { return pyval.Less(a, b) }
func isNumber(v any) bool   { return pyval.IsNumber(v) }

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
