package mathgrade

import (
	"math"
	"math/cmplx"
)

// Evaluation of expressions over the complex numbers, at one point.

// evaluator evaluates expressions over the complex numbers with the
// variables set to their values at one evaluation point.
type evaluator struct {
	point int
	b     *budget
	vars  []boundVar // indices of the sums being evaluated, innermost last
}

var nan = cmplx.NaN()

// eval returns the value of e. A zero imaginary part is always +0, so that
// branch cuts (square roots, logarithms of negative reals) are taken from
// the same side whatever sign arithmetic left on the zero.
func (ev *evaluator) eval(e *expr) complex128 {
	v := ev.evalNode(e)
	if imag(v) == 0 {
		return complex(real(v), 0)
	}
	return v
}

func (ev *evaluator) evalNode(e *expr) complex128 {
	if !ev.b.spend(1) {
		return nan
	}
	switch e.op {
	case opNum:
		f, _ := e.num.Float64()
		return complex(f, 0)
	case opVar:
		if len(ev.vars) == 0 {
			return complex(varValue(e.hash, ev.point), 0)
		}
		return ev.varAt(e.hash)
	case opConst:
		return constant(e.name)
	case opSum:
		return ev.evalSum(e)
	}
	x := ev.eval(e.args[0])
	var y complex128
	if len(e.args) > 1 {
		y = ev.eval(e.args[1])
	}
	switch e.op {
	case opAdd:
		return x + y
	case opSub:
		return x - y
	case opMul:
		return x * y
	case opDiv:
		if y == 0 {
			return nan
		}
		return x / y
	case opNeg:
		return -x
	case opPow:
		return power(x, y)
	case opRoot:
		return root(x, y)
	case opAbs:
		return complex(cmplx.Abs(x), 0)
	case opFloor, opCeil, opFact, opBinom:
		return realOnly(e.op, x, y)
	case opFunc:
		if len(e.args) > 1 {
			return cmplx.Log(x) / cmplx.Log(y)
		}
		return apply(e.name, x)
	}
	return nan
}

func constant(name string) complex128 {
	switch name {
	case constPi:
		return math.Pi
	case constE:
		return math.E
	case constI:
		return 1i
	}
	return cmplx.Inf()
}

// power computes x^y, over the reals when both are real and the result is
// real, so that integer powers are exact.
func power(x, y complex128) complex128 {
	if imag(x) == 0 && imag(y) == 0 && (real(x) >= 0 || real(y) == math.Trunc(real(y))) {
		return complex(math.Pow(real(x), real(y)), 0)
	}
	if x == 0 {
		return nan
	}
	return cmplx.Pow(x, y)
}

// root computes the index-th root of x; an odd root of a negative real is
// the real root.
func root(x, index complex128) complex128 {
	if index == 2 {
		return cmplx.Sqrt(x)
	}
	n := real(index)
	if imag(x) == 0 && imag(index) == 0 && real(x) < 0 && n == math.Trunc(n) && math.Mod(n, 2) != 0 {
		return complex(-math.Pow(-real(x), 1/n), 0)
	}
	return power(x, 1/index)
}

// realOnly evaluates floor, ceiling, factorial (the gamma function) and
// binomial coefficients, defined here on real arguments only.
func realOnly(op exprOp, x, y complex128) complex128 {
	if imag(x) != 0 || imag(y) != 0 {
		return nan
	}
	a, b := real(x), real(y)
	switch op {
	case opFloor:
		return complex(math.Floor(a), 0)
	case opCeil:
		return complex(math.Ceil(a), 0)
	case opFact:
		return complex(math.Gamma(a+1), 0)
	}
	return complex(math.Gamma(a+1)/(math.Gamma(b+1)*math.Gamma(a-b+1)), 0)
}

// apply returns the function name at x, NaN for a name it does not know.
func apply(name string, x complex128) complex128 {
	if f, ok := complexFuncs[name]; ok {
		return f(x)
	}
	return nan
}

// complexFuncs are the named functions apply evaluates.
var complexFuncs = map[string]func(complex128) complex128{
	"sin": cmplx.Sin, "cos": cmplx.Cos, "tan": cmplx.Tan,
	"cot": reciprocal(cmplx.Tan), "sec": reciprocal(cmplx.Cos), "csc": reciprocal(cmplx.Sin),
	"arcsin": cmplx.Asin, "arccos": cmplx.Acos, "arctan": cmplx.Atan,
	"sinh": cmplx.Sinh, "cosh": cmplx.Cosh, "tanh": cmplx.Tanh,
	"ln": cmplx.Log, "log10": cmplx.Log10, "exp": cmplx.Exp,
}

// reciprocal returns 1/f.
func reciprocal(f func(complex128) complex128) func(complex128) complex128 {
	return func(x complex128) complex128 { return 1 / f(x) }
}
