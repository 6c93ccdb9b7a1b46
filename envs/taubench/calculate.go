package taubench

import (
	"math"
	"math/big"
	"strings"

	"github.com/artist-rl/artist/internal/pyval"
)

// calcChars are the characters calculate accepts.
const calcChars = "0123456789+-*/(). "

// maxIntBits bounds the integers calculate builds; a power beyond it
// reports the OverflowError that converting it to float would raise.
const maxIntBits = 1 << 20

// Calculate is the calculate tool: it evaluates expression as a Python
// arithmetic expression (ints of any size, floats, + - * / // ** and
// parentheses), converts the result to float, rounds it to 2 decimals and
// returns its repr. Errors carry Python's messages for the cases the
// environment meets (division by zero, unclosed or unmatched parentheses,
// leading zeros, integer overflow); other syntax errors read "invalid
// syntax (<string>, line 1)".
func Calculate(expression string) (string, error) {
	for _, r := range expression {
		if !strings.ContainsRune(calcChars, r) {
			return "", toolError("invalid characters in expression")
		}
	}
	toks, err := calcTokens(expression)
	if err != nil {
		return "", err
	}
	p := &calcParser{toks: toks}
	v, err := p.expr()
	if err == nil && p.pos < len(p.toks) {
		err = p.syntaxError()
	}
	if err != nil {
		return "", err
	}
	f, err := v.float()
	if err != nil {
		return "", err
	}
	return pyval.FormatFloat(pyval.Float(pyval.Round(f, 2))), nil
}

// calcValue is an int (i set) or a float.
type calcValue struct {
	i *big.Int
	f float64
}

var errIntTooLarge = toolError("int too large to convert to float")

func (v calcValue) float() (float64, error) {
	if v.i == nil {
		return v.f, nil
	}
	f, acc := new(big.Float).SetInt(v.i).Float64()
	if math.IsInf(f, 0) || (acc != big.Exact && f == 0) {
		return 0, errIntTooLarge
	}
	return f, nil
}

type calcToken struct {
	op  string // operator or parenthesis; "" for a number
	num calcValue
}

func calcTokens(s string) ([]calcToken, error) {
	var toks []calcToken
	depth := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case c >= '0' && c <= '9' || c == '.':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			isFloat := j < len(s) && s[j] == '.'
			if isFloat {
				j++
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
			}
			lit := s[i:j]
			if lit == "." {
				return nil, calcSyntax
			}
			v, err := calcNumber(lit, isFloat)
			if err != nil {
				return nil, err
			}
			toks = append(toks, calcToken{num: v})
			i = j
		case strings.HasPrefix(s[i:], "**") || strings.HasPrefix(s[i:], "//"):
			toks = append(toks, calcToken{op: s[i : i+2]})
			i += 2
		default:
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth == 0 {
					return nil, toolError("unmatched ')' (<string>, line 1)")
				}
				depth--
			}
			toks = append(toks, calcToken{op: string(c)})
			i++
		}
	}
	if depth > 0 {
		return nil, toolError("'(' was never closed (<string>, line 1)")
	}
	if len(toks) == 0 {
		return nil, toolError("invalid syntax (<string>, line 0)")
	}
	return toks, nil
}

var calcSyntax = toolError("invalid syntax (<string>, line 1)")

func calcNumber(lit string, isFloat bool) (calcValue, error) {
	if isFloat {
		f, _, err := big.ParseFloat(lit, 10, 53, big.ToNearestEven)
		if err != nil {
			return calcValue{}, calcSyntax
		}
		x, _ := f.Float64()
		return calcValue{f: x}, nil
	}
	if len(lit) > 1 && lit[0] == '0' && strings.Trim(lit, "0") != "" {
		return calcValue{}, toolError("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)")
	}
	n, _ := new(big.Int).SetString(lit, 10)
	return calcValue{i: n}, nil
}

type calcParser struct {
	toks []calcToken
	pos  int
}

func (p *calcParser) syntaxError() error { return calcSyntax }

func (p *calcParser) peek() string {
	if p.pos < len(p.toks) {
		if t := p.toks[p.pos]; t.op != "" {
			return t.op
		}
		return "num"
	}
	return ""
}

// expr: term (("+" | "-") term)*
func (p *calcParser) expr() (calcValue, error) {
	v, err := p.term()
	for err == nil && (p.peek() == "+" || p.peek() == "-") {
		op := p.toks[p.pos].op
		p.pos++
		var w calcValue
		if w, err = p.term(); err == nil {
			v, err = calcBinary(op, v, w)
		}
	}
	return v, err
}

// term: factor (("*" | "/" | "//") factor)*
func (p *calcParser) term() (calcValue, error) {
	v, err := p.factor()
	for err == nil && (p.peek() == "*" || p.peek() == "/" || p.peek() == "//") {
		op := p.toks[p.pos].op
		p.pos++
		var w calcValue
		if w, err = p.factor(); err == nil {
			v, err = calcBinary(op, v, w)
		}
	}
	return v, err
}

// factor: ("+" | "-") factor | atom ["**" factor]
func (p *calcParser) factor() (calcValue, error) {
	switch p.peek() {
	case "+", "-":
		op := p.toks[p.pos].op
		p.pos++
		v, err := p.factor()
		if err != nil || op == "+" {
			return v, err
		}
		if v.i != nil {
			return calcValue{i: new(big.Int).Neg(v.i)}, nil
		}
		return calcValue{f: -v.f}, nil
	}
	v, err := p.atom()
	if err == nil && p.peek() == "**" {
		p.pos++
		var w calcValue
		if w, err = p.factor(); err == nil {
			v, err = calcPow(v, w)
		}
	}
	return v, err
}

// atom: number | "(" expr ")"
func (p *calcParser) atom() (calcValue, error) {
	switch p.peek() {
	case "num":
		p.pos++
		return p.toks[p.pos-1].num, nil
	case "(":
		p.pos++
		if p.peek() == ")" {
			return calcValue{}, toolError("float() argument must be a string or a real number, not 'tuple'")
		}
		v, err := p.expr()
		if err != nil {
			return v, err
		}
		if p.peek() != ")" {
			return v, p.syntaxError()
		}
		p.pos++
		return v, nil
	}
	return calcValue{}, p.syntaxError()
}
