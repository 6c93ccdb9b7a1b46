package mathgrade

import (
	"math/big"
	"strings"
)

// Notations of the expression parser beyond plain LaTeX arithmetic:
// scientific notation, degrees, the spellings of binomial coefficients,
// angles and decorated names (see latex.go for the grammar).

// radiansPerDegree is π/180: a degree sign inside a trigonometric
// function's argument multiplies by it.
var radiansPerDegree = &expr{op: opDiv, args: []*expr{{op: opConst, name: constPi}, {op: opNum, num: big.NewRat(180, 1)}}}

// maxSciExponent bounds the exponent of scientific notation, so that 1e400
// is exact and 1e99999 is not read as a number.
const maxSciExponent = 400

// sciExponent reads the exponent of scientific notation after the number
// literal lit: e or E, an optional sign and digits, followed by neither a
// letter, a digit nor ^. Because e is also Euler's number, an integer other
// than 1 followed by a lower-case e and a signed exponent without a leading
// zero (2e-3, which may be 2e - 3) is not read as scientific notation; 1e-3,
// 2E-3, 2.0e-3, 2e-03 and 2e3 are.
func (p *exprParser) sciExponent(lit string) (int, bool) {
	i := p.pos
	if i >= len(p.s) || p.s[i] != 'e' && p.s[i] != 'E' {
		return 0, false
	}
	upper := p.s[i] == 'E'
	i++
	signed, neg := false, false
	if i < len(p.s) && (p.s[i] == '+' || p.s[i] == '-') {
		signed, neg = true, p.s[i] == '-'
		i++
	}
	start := i
	for i < len(p.s) && isDigit(p.s[i]) {
		i++
	}
	digits := p.s[start:i]
	if digits == "" || len(digits) > 4 || i < len(p.s) && (isLetter(p.s[i]) || p.s[i] == '^') {
		return 0, false
	}
	exp := 0
	for j := 0; j < len(digits); j++ {
		exp = 10*exp + int(digits[j]-'0')
	}
	if exp > maxSciExponent {
		return 0, false
	}
	ambiguous := !upper && signed && lit != "1" && !strings.Contains(lit, ".") && digits[0] != '0'
	if ambiguous {
		return 0, false
	}
	p.pos = i
	if neg {
		exp = -exp
	}
	return exp, true
}

// scientific is the exact value of lit × 10^exp.
func scientific(lit string, exp int, b *budget) (*expr, error) {
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		return nil, errSyntax
	}
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs64(int64(exp)))), nil))
	if exp < 0 {
		scale.Inv(scale)
	}
	r.Mul(r, scale)
	if !chargeRat(r, b) {
		return nil, errSyntax
	}
	return &expr{op: opNum, num: r}, nil
}

// atCommand reports whether the command \name (not a longer one) starts at
// the position.
func (p *exprParser) atCommand(name string) bool { return commandName(p.s[p.pos:]) == name }

// choose reads "\choose k" after n, or returns n when no \choose follows.
func (p *exprParser) choose(n *expr) (*expr, error) {
	if p.space(); !p.atCommand("choose") {
		return n, nil
	}
	p.pos += len(`\choose`)
	k, err := p.sum()
	if err != nil {
		return nil, err
	}
	return &expr{op: opBinom, args: []*expr{n, k}}, nil
}

// binomialAfterC reads the binomial coefficients written with a capital C,
// just read: C(n,k), and C_n^k or C^k_n with integer literals n ≥ k ≥ 0 (so
// that C_1^2, a squared subscripted variable, stays one). It leaves the
// position alone when none follows.
func (p *exprParser) binomialAfterC() (*expr, bool) {
	start := p.pos
	if p.peek() == '(' {
		if n, k, ok := p.pair(); ok {
			return &expr{op: opBinom, args: []*expr{n, k}}, true
		}
		p.pos = start
		return nil, false
	}
	var n, k *expr
	for range 2 {
		c := p.peek()
		if c != '_' && c != '^' {
			break
		}
		p.pos++
		x, err := p.arg()
		if err != nil || !isIntLiteral(x) {
			break
		}
		if c == '_' && n == nil {
			n = x
		} else if c == '^' && k == nil {
			k = x
		}
	}
	if n == nil || k == nil || k.num.Sign() < 0 || n.num.Cmp(k.num) < 0 {
		p.pos = start
		return nil, false
	}
	return &expr{op: opBinom, args: []*expr{n, k}}, true
}

// pair reads (a,b), or fails with the position moved.
func (p *exprParser) pair() (a, b *expr, ok bool) {
	p.pos++
	a, err := p.sum()
	if p.space(); err != nil || p.peek() != ',' {
		return nil, nil, false
	}
	p.pos++
	b, err = p.sum()
	if p.space(); err != nil || p.peek() != ')' {
		return nil, nil, false
	}
	p.pos++
	return a, b, true
}

// prefixBinomial reads {}^nC_k or {}_nC_k (the braces optional), n choose
// k, or leaves the position alone.
func (p *exprParser) prefixBinomial() (*expr, bool) {
	start := p.pos
	if p.at("{}") {
		p.pos += 2
	}
	if c := p.peek(); c == '^' || c == '_' {
		p.pos++
		if n, err := p.arg(); err == nil && p.peek() == 'C' {
			p.pos++
			if p.peek() == '_' {
				p.pos++
				if k, err := p.arg(); err == nil {
					return &expr{op: opBinom, args: []*expr{n, k}}, true
				}
			}
		}
	}
	p.pos = start
	return nil, false
}

// angle reads the name after \angle, letters with their subscripts
// (\angle BEA_1), as one variable.
func (p *exprParser) angle() (*expr, error) {
	p.space()
	start := p.pos
	for isLetter(p.peek()) || p.peek() == '\'' {
		p.pos++
		if _, err := p.subscript(); err != nil {
			return nil, err
		}
	}
	if p.pos == start {
		return nil, errSyntax
	}
	return variable(`\angle ` + p.s[start:p.pos]), nil
}

// decorations are commands that mark a name: \overline{AB} is a segment,
// \vec{v} a vector. A decorated name is one variable.
var decorations = map[string]bool{
	"overline": true, "overrightarrow": true, "vec": true, "bar": true, "hat": true,
	"widehat": true, "tilde": true, "widetilde": true, "dot": true, "ddot": true,
}

// decorated reads the argument of a decoration: a braced group or one
// letter.
func (p *exprParser) decorated(name string) (*expr, error) {
	p.space()
	var arg string
	switch c := p.peek(); {
	case c == '{':
		end := closingBrace(p.s, p.pos)
		if end < 0 || end == p.pos+1 {
			return nil, errSyntax
		}
		arg = p.s[p.pos+1 : end]
		p.pos = end + 1
	case isLetter(c):
		arg = string(c)
		p.pos++
	default:
		return nil, errSyntax
	}
	return variable(`\` + name + "{" + arg + "}"), nil
}
