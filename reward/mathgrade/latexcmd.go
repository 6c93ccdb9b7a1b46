package mathgrade

import "math/big"

// Commands and functions of the LaTeX expression parser (see latex.go).

// functions maps a function name, written as a command or as a bare word,
// to its canonical name.
var functions = map[string]string{
	"sin": "sin", "cos": "cos", "tan": "tan", "cot": "cot", "sec": "sec", "csc": "csc",
	"arcsin": "arcsin", "arccos": "arccos", "arctan": "arctan",
	"sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
	"ln": "ln", "log": "ln", "lg": "log10", "exp": "exp",
}

// trigonometric are the functions whose argument may be in degrees.
var trigonometric = map[string]bool{"sin": true, "cos": true, "tan": true, "cot": true, "sec": true, "csc": true}

// inverses maps f to the function written f^{-1}.
var inverses = map[string]string{"sin": "arcsin", "cos": "arccos", "tan": "arctan"}

// bareWords are the names recognised without a backslash, longest first so
// that "sinh" is not read as "sin" h.
var bareWords = []string{"arcsin", "arccos", "arctan", "sqrt", "sinh", "cosh", "tanh",
	"sin", "cos", "tan", "cot", "sec", "csc", "log", "exp", "ln", "pi"}

var greek = map[string]bool{
	"alpha": true, "beta": true, "gamma": true, "delta": true, "epsilon": true, "varepsilon": true,
	"zeta": true, "eta": true, "theta": true, "vartheta": true, "iota": true, "kappa": true,
	"lambda": true, "mu": true, "nu": true, "xi": true, "rho": true, "sigma": true, "tau": true,
	"upsilon": true, "phi": true, "varphi": true, "chi": true, "psi": true, "omega": true,
	"Gamma": true, "Delta": true, "Theta": true, "Lambda": true, "Xi": true, "Sigma": true,
	"Phi": true, "Psi": true, "Omega": true,
}

// command reads a backslash command at the position.
func (p *exprParser) command() (*expr, error) {
	if p.at(`\{`) {
		return p.group(`\{`, `\}`)
	}
	name := commandName(p.s[p.pos:])
	if name == "" {
		return nil, errSyntax
	}
	p.pos += 1 + len(name)
	if greek[name] {
		return variable(`\` + name), nil
	}
	switch name {
	case "lfloor":
		x, err := p.group("", `\rfloor`)
		return unaryNode(opFloor, x, err)
	case "lceil":
		x, err := p.group("", `\rceil`)
		return unaryNode(opCeil, x, err)
	case "infty":
		return &expr{op: opConst, name: constInf}, nil
	case "angle":
		return p.angle()
	}
	if decorations[name] {
		return p.decorated(name)
	}
	return p.named(name)
}

// named builds the value or function called name, reading its arguments.
func (p *exprParser) named(name string) (*expr, error) {
	switch name {
	case "pi":
		return &expr{op: opConst, name: constPi}, nil
	case "sum":
		return p.bigSum()
	case "frac", "binom":
		a, err := p.arg()
		if err != nil {
			return nil, err
		}
		b, err := p.arg()
		if err != nil {
			return nil, err
		}
		op := opDiv
		if name == "binom" {
			op = opBinom
		}
		return &expr{op: op, args: []*expr{a, b}}, nil
	case "sqrt":
		var index *expr
		var err error
		if p.space(); p.peek() == '[' {
			if index, err = p.group("[", "]"); err != nil {
				return nil, err
			}
		}
		x, err := p.arg()
		return rootNode(x, index, err)
	}
	if fn, ok := functions[name]; ok {
		return p.function(fn)
	}
	return nil, errSyntax
}

// arg reads one command argument: a braced group or a single token (one
// digit, one letter, or a value command).
func (p *exprParser) arg() (*expr, error) {
	if p.depth++; p.depth > maxExprDepth {
		return nil, errSyntax
	}
	defer func() { p.depth-- }()
	p.space()
	switch c := p.peek(); {
	case c == '{':
		return p.group("{", "}")
	case isDigit(c):
		p.pos++
		return &expr{op: opNum, num: big.NewRat(int64(c-'0'), 1)}, nil
	case isLetter(c):
		p.pos++
		return variable(string(c)), nil
	case c == '(':
		return p.group("(", ")")
	case c == '\\' || p.at("π") || p.at("∞"):
		return p.primary()
	}
	return nil, errSyntax
}

// function reads the power, base and argument of a function: \sin^2 x,
// \log_{2}(n), \sin 2x (the argument extends over implicit products that
// do not start another function).
func (p *exprParser) function(fn string) (*expr, error) {
	var pow, base *expr
	var err error
	for p.space(); (p.peek() == '^' && pow == nil) || (p.peek() == '_' && base == nil); p.space() {
		c := p.peek()
		p.pos++
		var x *expr
		if p.space(); c == '^' && p.peek() == '-' {
			x, err = p.exponent()
		} else {
			x, err = p.arg()
		}
		if err != nil {
			return nil, err
		}
		if c == '^' {
			pow = x
		} else {
			base = x
		}
	}
	if trigonometric[fn] {
		p.trig++
	}
	arg, err := p.funcArg()
	if trigonometric[fn] {
		p.trig--
	}
	if err != nil {
		return nil, err
	}
	if inv, ok := inverses[fn]; ok && pow != nil && isMinusOne(pow) {
		fn, pow = inv, nil
	}
	f := &expr{op: opFunc, name: fn, args: []*expr{arg}}
	if base != nil {
		f.args = append(f.args, base)
	}
	if pow != nil {
		f = &expr{op: opPow, args: []*expr{f, pow}}
	}
	return f, nil
}

func (p *exprParser) funcArg() (*expr, error) {
	if p.depth++; p.depth > maxExprDepth {
		return nil, errSyntax
	}
	defer func() { p.depth-- }()
	if p.space(); p.peek() == '(' {
		return p.group("(", ")")
	}
	x, err := p.power()
	for err == nil && p.startsFactor() && !p.atFunction() {
		var y *expr
		if y, err = p.power(); err == nil {
			x = &expr{op: opMul, args: []*expr{x, y}}
		}
	}
	return x, err
}

// atFunction reports whether a function name starts at the position.
func (p *exprParser) atFunction() bool {
	if p.peek() == '\\' {
		_, ok := functions[commandName(p.s[p.pos:])]
		return ok
	}
	for _, w := range bareWords {
		if p.at(w) && w != "pi" {
			return true
		}
	}
	return false
}

func isMinusOne(e *expr) bool {
	return e.op == opNeg && e.args[0].op == opNum && e.args[0].num.Cmp(big.NewRat(1, 1)) == 0
}

// commandName returns the letters after a backslash at the start of s.
func commandName(s string) string {
	if len(s) < 2 || s[0] != '\\' {
		return ""
	}
	i := 1
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	return s[1:i]
}

// subscript reads _x or _{…} and returns its text without braces.
func (p *exprParser) subscript() (string, error) {
	if p.peek() != '_' {
		return "", nil
	}
	p.pos++
	if p.peek() == '{' {
		end := closingBrace(p.s, p.pos)
		if end < 0 || end == p.pos+1 {
			return "", errSyntax
		}
		sub := p.s[p.pos+1 : end]
		p.pos = end + 1
		return sub, nil
	}
	if c := p.peek(); isDigit(c) || isLetter(c) {
		p.pos++
		return string(c), nil
	}
	return "", errSyntax
}

// closingBrace returns the index of the '}' matching the '{' at s[i], or
// -1. Escaped braces (\{ and \}) are not braces.
func closingBrace(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
