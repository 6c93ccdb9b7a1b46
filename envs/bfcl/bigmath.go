package bfcl

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// logarithm follows mpmath at dps = precision: log(value) and log(base) are
// each rounded to prec bits, then divided with rounding to prec bits.
// mpmath takes int(precision) (a float is truncated, "8" is 8; what int()
// refuses is the error), and any dps below 1 gives the prec of dps 0. A
// precision over 1000 is refused: it would only cost time.
func (m *mathAPI) logarithm(a args) (any, error) {
	p, msg := pyInt(a["precision"])
	if msg != "" {
		return errDict(msg), nil
	}
	v, b := toFloat(a["value"]), toFloat(a["base"])
	if p > 1000 {
		return errDict("precision must be between 1 and 1000"), nil
	}
	p = max(p, -1)
	if v <= 0 || b <= 0 || b == 1 || math.IsInf(v, 0) || math.IsInf(b, 0) || math.IsNaN(v) || math.IsNaN(b) {
		return errDict("math domain error"), nil
	}
	prec := uint(max(1, int(math.Round(float64(p+1)*3.3219280948873634))))
	q := new(big.Float).SetPrec(prec).Quo(bigLog(v, prec), bigLog(b, prec))
	return NewDict("result", Repr("mpf('"+mpfString(q, reprDigits(prec))+"')")), nil
}

// reprDigits is mpmath's repr_dps: the digits repr prints at prec bits,
// three more than prec_to_dps (17 where that is 15).
func reprDigits(prec uint) int {
	dps := max(1, int(math.RoundToEven(float64(prec)/3.3219280948873626))-1)
	if dps == 15 {
		return 17
	}
	return dps + 3
}

// bigLog returns ln(x) for x > 0 rounded to prec bits.
func bigLog(x float64, prec uint) *big.Float {
	wp := prec + 64
	frac, exp := math.Frexp(x) // x = frac * 2^exp, frac in [0.5, 1)
	lnFrac := atanh2(new(big.Float).SetPrec(wp).SetFloat64(frac), wp)
	ln2 := atanh2(new(big.Float).SetPrec(wp).SetInt64(2), wp)
	r := new(big.Float).SetPrec(wp).Mul(ln2, new(big.Float).SetPrec(wp).SetInt64(int64(exp)))
	r.Add(r, lnFrac)
	return new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven).Set(r)
}

// atanh2 returns ln(y) = 2·atanh((y-1)/(y+1)) at wp bits, for y near 1.
func atanh2(y *big.Float, wp uint) *big.Float {
	one := new(big.Float).SetPrec(wp).SetInt64(1)
	num := new(big.Float).SetPrec(wp).Sub(y, one)
	den := new(big.Float).SetPrec(wp).Add(y, one)
	z := new(big.Float).SetPrec(wp).Quo(num, den)
	z2 := new(big.Float).SetPrec(wp).Mul(z, z)
	sum := new(big.Float).SetPrec(wp).Set(z)
	term := new(big.Float).SetPrec(wp).Set(z)
	eps := new(big.Float).SetMantExp(one, -int(wp)-8)
	for k := int64(3); ; k += 2 {
		term.Mul(term, z2)
		t := new(big.Float).SetPrec(wp).Quo(term, new(big.Float).SetPrec(wp).SetInt64(k))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
	}
	return sum.Mul(sum, new(big.Float).SetPrec(wp).SetInt64(2))
}

// mpfString formats like mpmath's to_str with dps digits: fixed notation
// for moderate exponents, trailing zeros stripped but one decimal kept.
func mpfString(f *big.Float, dps int) string {
	if f.Sign() == 0 {
		return "0.0"
	}
	s := f.Text('e', dps+2) // dps+3 significant digits
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, expS, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expS)
	digits := strings.Replace(mant, ".", "", 1)
	if digits[dps] >= '5' { // mpmath rounds its extra digits half up
		b := []byte(digits[:dps])
		i := dps - 1
		for ; i >= 0 && b[i] == '9'; i-- {
			b[i] = '0'
		}
		if i < 0 {
			b = append([]byte{'1'}, b[:dps-1]...)
			exp++
		} else {
			b[i]++
		}
		digits = string(b)
	} else {
		digits = digits[:dps]
	}
	minFixed := min(-(dps / 3), -5)
	split := 1
	if minFixed < exp && exp < dps {
		if exp < 0 {
			digits = strings.Repeat("0", -exp) + digits
		} else {
			split = exp + 1
		}
		exp = 0
	}
	out := strings.TrimRight(digits[:split]+"."+digits[split:], "0")
	if strings.HasSuffix(out, ".") {
		out += "0"
	}
	switch {
	case exp == 0:
		return sign + out
	case exp > 0:
		return sign + out + "e+" + strconv.Itoa(exp)
	}
	return sign + out + "e" + strconv.Itoa(exp)
}

// squareRoot is Decimal(number).sqrt() with `precision` significant digits
// (ties to even), printed as Python prints the Decimal.
func squareRoot(a args) (any, error) {
	n := a["number"]
	if !isNumber(n) {
		return errDict("Input must be a number or computation resulted in an invalid operation"), nil
	}
	if toFloat(n) < 0 {
		return errDict("Cannot calculate square root of a negative number"), nil
	}
	// getcontext().prec = precision: a TypeError for a non-int, which the
	// reference answers with its error dict, and a ValueError, raised, for
	// an int below 1.
	p := a["precision"]
	if !isInt(p) {
		return errDict("Input must be a number or computation resulted in an invalid operation"), nil
	}
	if toInt(p) < 1 {
		return nil, raise{"valid range for prec is [1, MAX_PREC]"}
	}
	if toInt(p) > 10000 || math.IsInf(toFloat(n), 0) || math.IsNaN(toFloat(n)) {
		return errDict("Input must be a number or computation resulted in an invalid operation"), nil
	}
	coef, e := exactDecimal(n)
	return NewDict("result", Repr("Decimal('"+decimalSqrt(coef, e, int(toInt(p)))+"')")), nil
}

// exactDecimal returns n = coef·10^e exactly, as Decimal(n) holds it.
func exactDecimal(n any) (*big.Int, int) {
	if isInt(n) {
		return big.NewInt(toInt(n)), 0
	}
	s := new(big.Float).SetFloat64(toFloat(n)).Text('e', -1) // exact, shortest for big.Float
	mant, expS, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expS)
	intPart, fracPart, _ := strings.Cut(mant, ".")
	c, _ := new(big.Int).SetString(intPart+fracPart, 10)
	return c, exp - len(fracPart)
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

func decimalSqrt(coef *big.Int, e, p int) string {
	if coef.Sign() == 0 {
		return decimalString(big.NewInt(0), e/2-boolInt(e < 0 && e%2 != 0))
	}
	adj := len(coef.String()) - 1 + e
	le := adj / 2
	if adj < 0 && adj%2 != 0 {
		le--
	}
	k := le - (p - 1)
	// m = coef·10^(e-2k), as num/den.
	num, den := new(big.Int).Set(coef), big.NewInt(1)
	if sh := e - 2*k; sh >= 0 {
		num.Mul(num, pow10(sh))
	} else {
		den = pow10(-sh)
	}
	q := new(big.Int).Quo(num, den)
	r := new(big.Int).Sqrt(q)
	exact := new(big.Int).Mul(r, r).Cmp(q) == 0 && new(big.Int).Mod(num, den).Sign() == 0
	if !exact {
		// round up when m > (r+1/2)^2, i.e. 4·num > (4r²+4r+1)·den
		lhs := new(big.Int).Mul(num, big.NewInt(4))
		rhs := new(big.Int).Mul(r, r)
		rhs.Mul(rhs, big.NewInt(4)).Add(rhs, new(big.Int).Mul(r, big.NewInt(4))).Add(rhs, big.NewInt(1)).Mul(rhs, den)
		if lhs.Cmp(rhs) > 0 {
			r.Add(r, big.NewInt(1))
		}
		if len(r.String()) > p {
			r.Quo(r, big.NewInt(10))
			k++
		}
		return decimalString(r, k)
	}
	ideal := e / 2
	if e < 0 && e%2 != 0 {
		ideal--
	}
	ten := big.NewInt(10)
	for k < ideal {
		qq, mm := new(big.Int).QuoRem(r, ten, new(big.Int))
		if mm.Sign() != 0 {
			break
		}
		r, k = qq, k+1
	}
	return decimalString(r, k)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decimalString is Decimal.__str__ for coef·10^exp.
func decimalString(coef *big.Int, exp int) string {
	ds := coef.String()
	adjusted := exp + len(ds) - 1
	if exp <= 0 && adjusted >= -6 {
		if exp == 0 {
			return ds
		}
		point := len(ds) + exp
		if point <= 0 {
			return "0." + strings.Repeat("0", -point) + ds
		}
		return ds[:point] + "." + ds[point:]
	}
	out := ds[:1]
	if len(ds) > 1 {
		out += "." + ds[1:]
	}
	if adjusted >= 0 {
		return out + "E+" + strconv.Itoa(adjusted)
	}
	return out + "E" + strconv.Itoa(adjusted)
}
