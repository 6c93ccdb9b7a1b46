package taubench

import (
	"math"
	"math/big"
)

// calcBinary applies + - * / // with Python's typing: int op int is an
// int (except /), any float operand makes the operation a float one.
func calcBinary(op string, a, b calcValue) (calcValue, error) {
	if a.i != nil && b.i != nil {
		return intBinary(op, a.i, b.i)
	}
	x, y, err := floats(a, b)
	if err != nil {
		return calcValue{}, err
	}
	switch op {
	case "+":
		return calcValue{f: x + y}, nil
	case "-":
		return calcValue{f: x - y}, nil
	case "*":
		return calcValue{f: x * y}, nil
	case "/":
		if y == 0 {
			return calcValue{}, toolError("float division by zero")
		}
		return calcValue{f: x / y}, nil
	}
	if y == 0 {
		return calcValue{}, toolError("float floor division by zero")
	}
	return calcValue{f: floorDiv(x, y)}, nil
}

func intBinary(op string, x, y *big.Int) (calcValue, error) {
	z := new(big.Int)
	switch op {
	case "+":
		return calcValue{i: z.Add(x, y)}, nil
	case "-":
		return calcValue{i: z.Sub(x, y)}, nil
	case "*":
		if x.BitLen()+y.BitLen() > maxIntBits {
			return calcValue{}, errIntTooLarge
		}
		return calcValue{i: z.Mul(x, y)}, nil
	case "/":
		if y.Sign() == 0 {
			return calcValue{}, toolError("division by zero")
		}
		f, _ := new(big.Rat).SetFrac(x, y).Float64()
		if math.IsInf(f, 0) {
			return calcValue{}, toolError("integer division result too large for a float")
		}
		return calcValue{f: f}, nil
	}
	if y.Sign() == 0 {
		return calcValue{}, toolError("integer division or modulo by zero")
	}
	m := new(big.Int)
	z.DivMod(x, y, m) // Euclidean; Python floors toward -inf
	if m.Sign() != 0 && y.Sign() < 0 {
		z.Sub(z, big.NewInt(1))
	}
	return calcValue{i: z}, nil
}

// floorDiv is Python's float floor division.
func floorDiv(x, y float64) float64 {
	mod := math.Mod(x, y)
	div := (x - mod) / y
	if mod != 0 {
		if (y < 0) != (mod < 0) {
			div--
		}
	}
	if div == 0 {
		return math.Copysign(0, x/y)
	}
	fl := math.Floor(div)
	if div-fl > 0.5 {
		fl++
	}
	return fl
}

// calcPow is Python's **: int ** non-negative int is an exact int, any
// other combination a float power.
func calcPow(a, b calcValue) (calcValue, error) {
	if a.i != nil && b.i != nil && b.i.Sign() >= 0 {
		if a.i.BitLen() > 1 && (!b.i.IsInt64() || int64(a.i.BitLen())*b.i.Int64() > maxIntBits) {
			return calcValue{}, errIntTooLarge
		}
		return calcValue{i: new(big.Int).Exp(a.i, b.i, nil)}, nil
	}
	x, y, err := floats(a, b)
	if err != nil {
		return calcValue{}, err
	}
	switch {
	case x == 0 && y < 0:
		return calcValue{}, toolError("0.0 cannot be raised to a negative power")
	case x < 0 && y != math.Trunc(y):
		return calcValue{}, toolError("float() argument must be a string or a real number, not 'complex'")
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) {
		return calcValue{}, toolError("(34, 'Numerical result out of range')")
	}
	return calcValue{f: r}, nil
}

// floats converts both operands to floats, as Python does for a mixed or
// float operation; an int too large for a float is an error.
func floats(a, b calcValue) (x, y float64, err error) {
	if x, err = a.float(); err != nil {
		return 0, 0, err
	}
	if y, err = b.float(); err != nil {
		return 0, 0, err
	}
	return x, y, nil
}
