package mathgrade

import (
	"errors"
	"math/big"
	"strings"
)

// A small LaTeX expression parser for the grader. It reads normalised
// answers (see normalize): spaces are gone except after a command name, \pi
// is π, \infty is ∞, \cdot and \times are *, \div is /, \left and \right
// are gone. Grammar, loosest first:
//
//	answer  = sum [\choose sum]
//	sum     = term {("+" | "-") term}
//	term    = unary {("*" | "/") unary | power}     juxtaposition multiplies
//	unary   = {"-" | "+"} power
//	power   = postfix ["^" exponent]                right-associative
//	postfix = primary {"!" | "°" | "²" | "³"}
//	primary = number | letter [subscript] | π | ∞ | "(" sum ")" | "[" sum "]"
//	        | "{" sum [\choose sum] "}" | "\{" sum "\}" | "|" sum "|"
//	        | \frac A B | \sqrt[n] A | \binom A B | binomial
//	        | \lfloor sum \rfloor | \lceil sum \rceil | \angle name | function
//	        | \sum_{letter=sum}^A term                   (sums.go)
//
// A command argument (A, B) is a braced group or one token, so \frac12 is
// 1/2 and \sqrt2x is √2·x. An integer followed by a fraction of integers is
// a mixed number (1\frac{1}{2} is 3/2). A number may carry a decimal
// exponent (1.5e3, 2E-4; see sciExponent). The letters e and i are Euler's
// number and the imaginary unit; other letters, optionally subscripted,
// Greek letters, angles (\angle ABC) and decorated names (\overline{AB})
// are variables. A degree sign converts degrees to radians inside the
// argument of a trigonometric function and is dropped elsewhere (30° is
// 30, \sin 30° is 1/2). Besides \binom and \choose, a binomial is written
// C(n,k), {}^nC_k or {}_nC_k, or C_n^k and C^k_n with integers n ≥ k ≥ 0.

// exprOp is the operation of an expression node.
type exprOp uint8

const (
	opNum   exprOp = iota // exact rational literal
	opVar                 // variable, by name
	opConst               // π, e, i or ∞, by name
	opAdd
	opSub
	opMul
	opDiv
	opNeg
	opPow
	opFunc // name(args[0]); log has an optional base args[1]
	opFact
	opAbs
	opFloor
	opCeil
	opRoot // args[0] radicand, args[1] index
	opBinom
	opSum // args: lower bound, upper bound, body; name: the index
)

// expr is a node of a parsed expression. Nodes are immutable once built.
type expr struct {
	op exprOp
	// formal: a sum whose value is formal (see sums.go), as its body
	// names the index in a subscript.
	formal bool
	name   string
	hash   uint64 // nameHash(name), for variables
	num    *big.Rat
	args   []*expr
}

// variable returns the node of the variable called name.
func variable(name string) *expr { return &expr{op: opVar, name: name, hash: nameHash(name)} }

// Names of the constants of opConst.
const (
	constPi  = "pi"
	constE   = "e"
	constI   = "i"
	constInf = "inf"
)

// maxExprDepth bounds the nesting of groups and arguments.
const maxExprDepth = 100

var errSyntax = errors.New("mathgrade: not an expression")

// exprParser is a recursive-descent parser over a normalised answer.
type exprParser struct {
	s     string
	pos   int
	depth int
	bars  int // open |…| groups
	exps  int // open exponents, where no mixed number is read
	trig  int // open arguments of trigonometric functions, where ° is π/180
	b     *budget
}

// parseExpr parses s as one expression. Every node costs budget; an
// exhausted budget is a syntax error.
func parseExpr(s string, b *budget) (*expr, error) {
	p := &exprParser{s: s, b: b}
	e, err := p.sum()
	if err == nil {
		e, err = p.choose(e)
	}
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.s) {
		return nil, errSyntax
	}
	return e, nil
}

func (p *exprParser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *exprParser) at(prefix string) bool { return strings.HasPrefix(p.s[p.pos:], prefix) }

func (p *exprParser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n') {
		p.pos++
	}
}

func (p *exprParser) sum() (*expr, error) {
	if p.depth++; p.depth > maxExprDepth {
		return nil, errSyntax
	}
	defer func() { p.depth-- }()
	x, err := p.term()
	for err == nil {
		p.space()
		op := opAdd
		switch p.peek() {
		case '+':
		case '-':
			op = opSub
		default:
			return x, nil
		}
		p.pos++
		var y *expr
		if y, err = p.term(); err == nil {
			x = &expr{op: op, args: []*expr{x, y}}
		}
	}
	return nil, err
}

func (p *exprParser) term() (*expr, error) {
	x, err := p.unary()
	for err == nil {
		p.space()
		var y *expr
		switch c := p.peek(); {
		case c == '*' || c == '/':
			p.pos++
			if y, err = p.unary(); err == nil {
				op := opMul
				if c == '/' {
					op = opDiv
				}
				x = &expr{op: op, args: []*expr{x, y}}
			}
		case p.startsFactor():
			if y, err = p.power(); err == nil {
				x = &expr{op: opMul, args: []*expr{x, y}}
			}
		default:
			return x, nil
		}
	}
	return nil, err
}

func (p *exprParser) unary() (*expr, error) {
	neg := false
	for p.space(); p.peek() == '-' || p.peek() == '+'; p.space() {
		neg = neg != (p.peek() == '-')
		p.pos++
	}
	x, err := p.power()
	if err != nil || !neg {
		return x, err
	}
	return &expr{op: opNeg, args: []*expr{x}}, nil
}

func (p *exprParser) power() (*expr, error) {
	x, err := p.postfix()
	if err != nil {
		return nil, err
	}
	if p.space(); p.peek() != '^' {
		return x, nil
	}
	p.pos++
	y, err := p.exponent()
	if err != nil {
		return nil, err
	}
	return &expr{op: opPow, args: []*expr{x, y}}, nil
}

// exponent reads what follows ^: a signed power, so 2^-1 and 2^3^2 work.
func (p *exprParser) exponent() (*expr, error) {
	if p.depth++; p.depth > maxExprDepth {
		return nil, errSyntax
	}
	p.exps++
	defer func() { p.depth--; p.exps-- }()
	if p.space(); p.peek() == '-' {
		p.pos++
		y, err := p.exponent()
		if err != nil {
			return nil, err
		}
		return &expr{op: opNeg, args: []*expr{y}}, nil
	}
	return p.power()
}

func (p *exprParser) postfix() (*expr, error) {
	x, err := p.primary()
	for err == nil {
		p.space()
		switch {
		case p.peek() == '!':
			p.pos++
			x = &expr{op: opFact, args: []*expr{x}}
		case p.at("°"):
			p.pos += len("°")
			if p.trig > 0 {
				x = &expr{op: opMul, args: []*expr{x, radiansPerDegree}}
			}
		case p.at("²") || p.at("³"):
			n := int64(2)
			if p.at("³") {
				n = 3
			}
			p.pos += len("²")
			x = &expr{op: opPow, args: []*expr{x, {op: opNum, num: big.NewRat(n, 1)}}}
		default:
			return x, nil
		}
	}
	return nil, err
}

// startsFactor reports whether the next token can begin an implicit factor.
func (p *exprParser) startsFactor() bool {
	c := p.peek()
	switch {
	case isDigit(c) || isLetter(c) || c == '.' || c == '(' || c == '[' || c == '{':
		return true
	case c == '|':
		return p.bars == 0
	case c == '\\':
		name := commandName(p.s[p.pos:])
		return name == "" && p.at(`\{`) || isValueCommand(name)
	}
	return p.at("π") || p.at("∞") || p.at("√")
}

func isValueCommand(name string) bool {
	switch name {
	case "frac", "sqrt", "binom", "lfloor", "lceil", "pi", "infty", "angle":
		return true
	}
	if decorations[name] {
		return true
	}
	_, fn := functions[name]
	return fn || greek[name]
}

func (p *exprParser) primary() (*expr, error) {
	if !p.b.spend(1) {
		return nil, errBudget
	}
	p.space()
	switch c := p.peek(); {
	case isDigit(c) || c == '.':
		return p.number()
	case isLetter(c):
		return p.word()
	case c == '(':
		return p.group("(", ")")
	case c == '[':
		return p.group("[", "]")
	case c == '{' || c == '^' || c == '_':
		if x, ok := p.prefixBinomial(); ok {
			return x, nil
		}
		if c != '{' {
			return nil, errSyntax
		}
		return p.group("{", "}")
	case c == '|' && p.bars == 0:
		p.bars++
		x, err := p.group("|", "|")
		p.bars--
		return unaryNode(opAbs, x, err)
	case c == '\\':
		return p.command()
	case p.at("π"):
		p.pos += len("π")
		return &expr{op: opConst, name: constPi}, nil
	case p.at("∞"):
		p.pos += len("∞")
		return &expr{op: opConst, name: constInf}, nil
	case p.at("√"):
		p.pos += len("√")
		x, err := p.arg()
		return rootNode(x, nil, err)
	}
	return nil, errSyntax
}

func unaryNode(op exprOp, x *expr, err error) (*expr, error) {
	if err != nil {
		return nil, err
	}
	return &expr{op: op, args: []*expr{x}}, nil
}

func rootNode(x, index *expr, err error) (*expr, error) {
	if err != nil {
		return nil, err
	}
	if index == nil {
		index = &expr{op: opNum, num: big.NewRat(2, 1)}
	}
	return &expr{op: opRoot, args: []*expr{x, index}}, nil
}

// group parses open sum close; a brace group may hold n \choose k.
func (p *exprParser) group(open, close string) (*expr, error) {
	p.pos += len(open)
	x, err := p.sum()
	if err == nil && open == "{" {
		x, err = p.choose(x)
	}
	if err != nil {
		return nil, err
	}
	if p.space(); !p.at(close) {
		return nil, errSyntax
	}
	p.pos += len(close)
	return x, nil
}

// number reads digits with an optional decimal point, and a mixed number
// when an integer is followed by a fraction of integers.
func (p *exprParser) number() (*expr, error) {
	start := p.pos
	for p.pos < len(p.s) && isDigit(p.s[p.pos]) {
		p.pos++
	}
	integer := p.pos > start
	if p.peek() == '.' {
		integer = false
		p.pos++
		for p.pos < len(p.s) && isDigit(p.s[p.pos]) {
			p.pos++
		}
	}
	lit := strings.TrimSuffix(p.s[start:p.pos], ".")
	if lit == "" || lit == "." || !p.b.spend(len(lit)/8) {
		return nil, errSyntax
	}
	if exp, ok := p.sciExponent(lit); ok {
		return scientific(lit, exp, p.b)
	}
	var r *big.Rat
	if integer && len(lit) <= 18 { // fits an int64: skip the general parser
		v := int64(0)
		for i := 0; i < len(lit); i++ {
			v = 10*v + int64(lit[i]-'0')
		}
		r = big.NewRat(v, 1)
	} else if r, _ = new(big.Rat).SetString(lit); r == nil {
		return nil, errSyntax
	}
	n := &expr{op: opNum, num: r}
	if integer && p.exps == 0 {
		if frac, ok := p.integerFraction(); ok {
			return &expr{op: opAdd, args: []*expr{n, frac}}, nil
		}
	}
	return n, nil
}

// integerFraction reads \frac{a}{b} with integer literals a and b, or
// leaves the position alone.
func (p *exprParser) integerFraction() (*expr, bool) {
	if !p.at(`\frac`) {
		return nil, false
	}
	start := p.pos
	p.pos += len(`\frac`)
	a, err := p.arg()
	var b *expr
	if err == nil {
		b, err = p.arg()
	}
	if err != nil || !isIntLiteral(a) || !isIntLiteral(b) {
		p.pos = start
		return nil, false
	}
	return &expr{op: opDiv, args: []*expr{a, b}}, true
}

func isIntLiteral(e *expr) bool { return e.op == opNum && e.num.IsInt() }

// word reads a bare function name or constant, or one letter as a
// variable (with its subscript), e or i.
func (p *exprParser) word() (*expr, error) {
	rest := p.s[p.pos:]
	for _, w := range bareWords {
		if strings.HasPrefix(rest, w) {
			p.pos += len(w)
			return p.named(w)
		}
	}
	name := rest[:1]
	p.pos++
	if name == "C" {
		if x, ok := p.binomialAfterC(); ok {
			return x, nil
		}
	}
	sub, err := p.subscript()
	if err != nil {
		return nil, err
	}
	switch {
	case sub != "":
		return variable(name + "_" + sub), nil
	case name == "e":
		return &expr{op: opConst, name: constE}, nil
	case name == "i":
		return &expr{op: opConst, name: constI}, nil
	}
	return variable(name), nil
}
