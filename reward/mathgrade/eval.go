package mathgrade

import (
	"errors"
	"math"
	"math/big"
	"math/cmplx"
	"math/rand"
)

// Evaluation of parsed expressions: exactly over the rationals where every
// operation allows it, otherwise over the complex numbers at fixed random
// points.

// stepBudget is the work one comparison may do, in steps of roughly a
// node evaluation each (big-number arithmetic costs more by its size). It
// bounds the time of Equal at a few milliseconds; a comparison that runs
// out of steps answers "not equal".
const stepBudget = 200_000

var errBudget = errors.New("mathgrade: comparison budget spent")

// budget counts the steps left to one comparison.
type budget struct {
	left int
	// lax compares ordered tuples as multisets and ignores their names. It
	// is only set to explain a rejection (see Grade), never to accept.
	lax bool
}

// spend takes n steps and reports whether any were left.
func (b *budget) spend(n int) bool {
	b.left -= n
	return b.left >= 0
}

// Limits of exact arithmetic; beyond them a value is compared numerically.
const (
	maxExactBits = 1 << 14 // numerator plus denominator
	maxFactorial = 1000    // 1000! has 8530 bits
	maxBinomial  = 1000
)

// exact evaluates e over the rationals. ok is false when e holds a
// variable, a constant other than a rational, an irrational operation, a
// division by zero, or a number over maxExactBits.
func exact(e *expr, b *budget) (*big.Rat, bool) {
	if e.op == opNum {
		return e.num, b.spend(1)
	}
	var xs [2]*big.Rat
	for i, a := range e.args[:min(len(e.args), 2)] {
		x, ok := exact(a, b)
		if !ok {
			return nil, false
		}
		xs[i] = x
	}
	x, y := xs[0], xs[1]
	r := new(big.Rat)
	switch e.op {
	case opAdd:
		r.Add(x, y)
	case opSub:
		r.Sub(x, y)
	case opMul:
		r.Mul(x, y)
	case opDiv:
		if y.Sign() == 0 {
			return nil, false
		}
		r.Quo(x, y)
	case opNeg:
		r.Neg(x)
	case opAbs:
		r.Abs(x)
	case opFloor, opCeil:
		r.SetInt(floorRat(x, e.op == opCeil))
	case opPow:
		return exactPow(x, y, b)
	case opRoot:
		return exactRoot(x, y)
	case opFact:
		return exactCombin(x, nil, b)
	case opBinom:
		return exactCombin(x, y, b)
	default:
		return nil, false
	}
	return r, chargeRat(r, b)
}

// chargeRat spends steps for arithmetic on r, quadratic in its size (the
// cost of the gcd that keeps a big.Rat reduced), and refuses huge numbers.
func chargeRat(r *big.Rat, b *budget) bool {
	bits := r.Num().BitLen() + r.Denom().BitLen()
	words := bits/64 + 1
	return bits <= maxExactBits && b.spend(1+words*words/16)
}

func floorRat(x *big.Rat, ceil bool) *big.Int {
	q := new(big.Int)
	if ceil {
		q.Div(new(big.Int).Neg(x.Num()), x.Denom())
		return q.Neg(q)
	}
	return q.Div(x.Num(), x.Denom()) // Euclidean: the floor, as Denom > 0
}

// exactPow computes x^y for an integer y when the result fits.
func exactPow(x, y *big.Rat, b *budget) (*big.Rat, bool) {
	if !y.IsInt() || !y.Num().IsInt64() {
		return nil, false
	}
	n := y.Num().Int64()
	if x.Sign() == 0 && n < 0 {
		return nil, false
	}
	size := int64(x.Num().BitLen() + x.Denom().BitLen())
	if n > maxExactBits || n < -maxExactBits || size*abs64(n) > maxExactBits {
		return nil, false
	}
	e := big.NewInt(abs64(n))
	num := new(big.Int).Exp(x.Num(), e, nil)
	den := new(big.Int).Exp(x.Denom(), e, nil)
	if n < 0 {
		num, den = den, num
	}
	r := new(big.Rat).SetFrac(num, den)
	return r, chargeRat(r, b)
}

// exactRoot computes the square root of x when x is the square of a
// rational.
func exactRoot(x, index *big.Rat) (*big.Rat, bool) {
	if index.Cmp(big.NewRat(2, 1)) != 0 || x.Sign() < 0 {
		return nil, false
	}
	num, ok := intSqrt(x.Num())
	if !ok {
		return nil, false
	}
	den, ok := intSqrt(x.Denom())
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetFrac(num, den), true
}

func intSqrt(n *big.Int) (*big.Int, bool) {
	r := new(big.Int).Sqrt(n)
	return r, new(big.Int).Mul(r, r).Cmp(n) == 0
}

// exactCombin computes n! (k nil) or the binomial coefficient n choose k
// for small non-negative integers.
func exactCombin(n, k *big.Rat, b *budget) (*big.Rat, bool) {
	limit := int64(maxFactorial)
	if k != nil {
		limit = maxBinomial
	}
	if !n.IsInt() || !n.Num().IsInt64() || n.Sign() < 0 || n.Num().Int64() > limit {
		return nil, false
	}
	nn := n.Num().Int64()
	lg, _ := math.Lgamma(float64(nn) + 1)
	if words := int(lg/math.Ln2)/64 + 1; !b.spend(1 + int(nn)*words/16) { // a product of nn factors
		return nil, false
	}
	r := new(big.Int)
	switch {
	case k == nil:
		r.MulRange(1, nn)
	case !k.IsInt() || !k.Num().IsInt64():
		return nil, false
	default:
		kk := k.Num().Int64()
		if kk < 0 || kk > nn {
			return new(big.Rat), true
		}
		r.Binomial(nn, kk)
	}
	q := new(big.Rat).SetInt(r)
	return q, chargeRat(q, b)
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// Random evaluation points: at point k, a variable takes the value
// varValue(nameHash(name), k), an entry of the table points[k] drawn once
// from a fixed seed, picked by hashing the name with k. So a variable's value depends on its
// name only, not on the other variables of the comparison, and grading is
// reproducible. Two distinct variables share a value at one point with
// probability 1/pointSlots, at every point with probability
// pointSlots^-numPoints. Values are positive and avoid 0 and 1, where
// distinct expressions often agree (see pointRanges); being positive,
// \sqrt{x^2} equals x.
const (
	numPoints  = 8
	pointSlots = 1024
	pointSeed  = 2505_01441
)

var points = func() (p [numPoints][pointSlots]float64) {
	rng := rand.New(rand.NewSource(pointSeed))
	for i := range p {
		r := pointRanges[i]
		for j := range p[i] {
			p[i][j] = r[0] + (r[1]-r[0])*rng.Float64()
		}
	}
	return p
}()

// pointRanges spread the points over (0, 10): below 1, between 1 and 3,
// and larger, so that |x-1| is not x-1 and \lfloor (2n-1)/5 \rfloor is not 0.
var pointRanges = [numPoints][2]float64{{0.05, 0.95}, {0.05, 0.95}, {1.05, 3}, {1.05, 3}, {1.05, 3}, {3, 10}, {3, 10}, {3, 10}}

// nameHash is the 64-bit FNV-1a hash of a variable name.
func nameHash(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return h
}

// varValue is the value of the variable whose name hashes to h at point k.
func varValue(h uint64, k int) float64 {
	z := h + uint64(k+1)*0x9e3779b97f4a7c15 // splitmix64 finaliser
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return points[k][z%pointSlots]
}

// Relative and absolute tolerances of a numeric comparison.
const (
	relTol = 1e-9
	absTol = 1e-12
)

// sameExpr reports whether x and y denote the same value: exactly when
// both evaluate over the rationals, otherwise at every evaluation point
// where both are finite, within relTol. Expressions with variables need at
// least half of the points to be finite; constant ones need their one
// evaluation finite. Infinity equals only infinity of the same sign.
func sameExpr(x, y *expr, b *budget) bool {
	if sx, sy := infSign(x), infSign(y); sx != 0 || sy != 0 {
		return sx == sy
	}
	if rx, ok := exact(x, b); ok {
		if ry, ok := exact(y, b); ok {
			return rx.Cmp(ry) == 0
		}
	}
	n, need := numPoints, numPoints/2
	if !hasVar(x) && !hasVar(y) {
		n, need = 1, 1
	}
	ev := &evaluator{b: b}
	valid := 0
	for k := range n {
		ev.point = k
		vx, vy := ev.eval(x), ev.eval(y)
		if b.left < 0 {
			return false
		}
		if !finite(vx) || !finite(vy) {
			continue
		}
		if !closeTo(vx, vy) {
			return false
		}
		valid++
	}
	return valid >= need
}

// sameEquation reports whether l1 = r1 and l2 = r2 are the same equation
// up to a non-zero factor (see proportional).
func sameEquation(l1, r1, l2, r2 *expr, b *budget) bool {
	d1 := &expr{op: opSub, args: []*expr{l1, r1}}
	d2 := &expr{op: opSub, args: []*expr{l2, r2}}
	return proportional(d1, d2, false, b)
}

// proportional reports whether d1 and d2 are proportional, by a positive
// factor when positive is set: at every evaluation point where both are
// finite (at least half of them), and not constant.
func proportional(d1, d2 *expr, positive bool, b *budget) bool {
	if !hasVar(d1) && !hasVar(d2) {
		return false
	}
	ev := &evaluator{b: b}
	var xs, ys []complex128
	for k := range numPoints {
		ev.point = k
		x, y := ev.eval(d1), ev.eval(d2)
		if b.left < 0 {
			return false
		}
		if finite(x) && finite(y) {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	ref := -1
	for k := range xs {
		if !closeTo(xs[k], 0) && !closeTo(ys[k], 0) {
			ref = k
			break
		}
	}
	if len(xs) < numPoints/2 || ref < 0 {
		return false
	}
	if ratio := xs[ref] / ys[ref]; positive && (real(ratio) <= 0 || math.Abs(imag(ratio)) > relTol*cmplx.Abs(ratio)) {
		return false
	}
	varies := false
	for k := range xs {
		if !closeTo(xs[k]*ys[ref], xs[ref]*ys[k]) {
			return false
		}
		varies = varies || !closeTo(xs[k], xs[ref])
	}
	return varies
}

// infSign is +1 for ∞, -1 for -∞ and 0 for anything else.
func infSign(e *expr) int {
	switch {
	case e.op == opConst && e.name == constInf:
		return 1
	case e.op == opNeg && e.args[0].op == opConst && e.args[0].name == constInf:
		return -1
	}
	return 0
}

func hasVar(e *expr) bool {
	if e.op == opVar {
		return true
	}
	for _, a := range e.args {
		if hasVar(a) {
			return true
		}
	}
	return false
}

func finite(z complex128) bool { return !cmplx.IsInf(z) && !cmplx.IsNaN(z) }

func closeTo(x, y complex128) bool {
	d := cmplx.Abs(x - y)
	return d <= absTol || d <= relTol*max(cmplx.Abs(x), cmplx.Abs(y))
}
