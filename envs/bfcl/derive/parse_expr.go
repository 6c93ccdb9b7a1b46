package derive

import "strings"

// namedTest is a test where Python would also allow ":=", which is not
// supported.
func (p *parser) namedTest() (expr, error) {
	x, err := p.test()
	if err == nil && p.isOp(":=") {
		return nil, p.errorf("assignment expressions (:=) are not supported")
	}
	return x, err
}

// test parses a conditional expression.
func (p *parser) test() (expr, error) {
	for _, kw := range []string{"lambda", "yield", "await"} {
		if p.isKw(kw) {
			return nil, p.errorf("%s expressions are not supported", kw)
		}
	}
	line := p.peek().line
	x, err := p.orTest()
	if err != nil || !p.accept("if") {
		return x, err
	}
	cond, err := p.orTest()
	if err != nil {
		return nil, err
	}
	if err := p.expect("else"); err != nil {
		return nil, err
	}
	els, err := p.test()
	if err != nil {
		return nil, err
	}
	return &pyIfExp{Test: cond, Body: x, Else: els, Line: line}, nil
}

// startsExpr reports whether t can begin an expression.
func startsExpr(t token) bool {
	switch t.kind {
	case tNumber, tString:
		return true
	case tName:
		return !keywords[t.text] || t.text == "True" || t.text == "False" || t.text == "None" ||
			t.text == "not" || t.text == "lambda" || t.text == "await" || t.text == "yield"
	case tOp:
		return strings.Contains("( [ { - + ~ * ...", t.text)
	}
	return false
}

// testList parses comma-separated expressions (starred ones too when star
// is set); more than one, or a trailing comma, makes a tuple.
func (p *parser) testList(star bool) (expr, error) {
	return p.sequence(func() (expr, error) {
		if star && p.isOp("*") {
			line := p.next().line
			x, err := p.bitOr()
			return &pyStarred{X: x, Line: line}, err
		}
		return p.test()
	})
}

// targetList parses the target of a for loop or comprehension.
func (p *parser) targetList() (expr, error) {
	return p.sequence(func() (expr, error) {
		if p.isOp("*") {
			line := p.next().line
			x, err := p.bitOr()
			return &pyStarred{X: x, Line: line}, err
		}
		return p.bitOr()
	})
}

func (p *parser) sequence(elem func() (expr, error)) (expr, error) {
	line := p.peek().line
	x, err := elem()
	if err != nil || !p.isOp(",") {
		return x, err
	}
	elts := []expr{x}
	for p.accept(",") && startsExpr(p.peek()) && !p.isKw("in") {
		x, err := elem()
		if err != nil {
			return nil, err
		}
		elts = append(elts, x)
	}
	return &pyTuple{Elts: elts, Line: line}, nil
}

func (p *parser) orTest() (expr, error)  { return p.boolOp("or", p.andTest) }
func (p *parser) andTest() (expr, error) { return p.boolOp("and", p.notTest) }

func (p *parser) boolOp(op string, operand func() (expr, error)) (expr, error) {
	line := p.peek().line
	x, err := operand()
	if err != nil || !p.isKw(op) {
		return x, err
	}
	b := &pyBoolOp{Op: op, Values: []expr{x}, Line: line}
	for p.accept(op) {
		y, err := operand()
		if err != nil {
			return nil, err
		}
		b.Values = append(b.Values, y)
	}
	return b, nil
}

func (p *parser) notTest() (expr, error) {
	if p.isKw("not") {
		line := p.next().line
		x, err := p.notTest()
		return &pyUnaryOp{Op: "not", X: x, Line: line}, err
	}
	return p.comparison()
}

// compOp consumes a comparison operator and returns it, or "".
func (p *parser) compOp() string {
	t := p.peek()
	switch {
	case t.kind == tOp && (t.text == "<" || t.text == ">" || t.text == "==" || t.text == ">=" || t.text == "<=" || t.text == "!="):
		p.i++
		return t.text
	case p.isKw("in"):
		p.i++
		return "in"
	case p.isKw("is"):
		p.i++
		if p.accept("not") {
			return "is not"
		}
		return "is"
	case p.isKw("not") && p.toks[p.i+1].kind == tName && p.toks[p.i+1].text == "in":
		p.i += 2
		return "not in"
	}
	return ""
}

func (p *parser) comparison() (expr, error) {
	line := p.peek().line
	x, err := p.bitOr()
	if err != nil {
		return nil, err
	}
	var c *pyCompare
	for op := p.compOp(); op != ""; op = p.compOp() {
		y, err := p.bitOr()
		if err != nil {
			return nil, err
		}
		if c == nil {
			c = &pyCompare{Left: x, Line: line}
		}
		c.Ops = append(c.Ops, op)
		c.Comps = append(c.Comps, y)
	}
	if c == nil {
		return x, nil
	}
	return c, nil
}

// binary levels, lowest precedence first.
var binLevels = [][]string{{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}}

func (p *parser) bitOr() (expr, error) { return p.binary(0) }

func (p *parser) binary(level int) (expr, error) {
	if level == len(binLevels) {
		return p.factor()
	}
	line := p.peek().line
	x, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp || !contains(binLevels[level], t.text) {
			return x, nil
		}
		p.i++
		y, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		x = &pyBinOp{Op: t.text, L: x, R: y, Line: line}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) factor() (expr, error) {
	if t := p.peek(); t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~") {
		p.i++
		x, err := p.factor()
		return &pyUnaryOp{Op: t.text, X: x, Line: t.line}, err
	}
	line := p.peek().line
	x, err := p.primary()
	if err != nil || !p.accept("**") {
		return x, err
	}
	y, err := p.factor()
	return &pyBinOp{Op: "**", L: x, R: y, Line: line}, err
}

// primary parses an atom followed by calls, subscripts and attributes.
func (p *parser) primary() (expr, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		line := p.peek().line
		switch {
		case p.accept("("):
			args, kw, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			x = &pyCall{Func: x, Args: args, Kw: kw, Line: line}
		case p.accept("["):
			idx, err := p.subscripts()
			if err != nil {
				return nil, err
			}
			x = &pySubscript{X: x, Index: idx, Line: line}
		case p.accept("."):
			name, err := p.ident()
			if err != nil {
				return nil, err
			}
			x = &pyAttribute{X: x, Attr: name, Line: line}
		default:
			return x, nil
		}
	}
}

// callArgs parses call arguments after "(" up to and including ")".
func (p *parser) callArgs() ([]expr, []pyKeyword, error) {
	var args []expr
	var kw []pyKeyword
	for !p.isOp(")") {
		line := p.peek().line
		switch {
		case p.accept("**"):
			v, err := p.test()
			if err != nil {
				return nil, nil, err
			}
			kw = append(kw, pyKeyword{Value: v})
		case p.accept("*"):
			v, err := p.test()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, &pyStarred{X: v, Line: line})
		case p.peek().kind == tName && p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == "=":
			name := p.next().text
			p.i++
			v, err := p.test()
			if err != nil {
				return nil, nil, err
			}
			kw = append(kw, pyKeyword{Name: name, Value: v})
		default:
			v, err := p.namedTest()
			if err != nil {
				return nil, nil, err
			}
			if p.isKw("for") {
				gens, err := p.compFor()
				if err != nil {
					return nil, nil, err
				}
				v = &pyComp{Kind: "gen", Elt: v, Gens: gens, Line: line}
			}
			args = append(args, v)
		}
		if !p.accept(",") {
			break
		}
	}
	return args, kw, p.expect(")")
}

// subscripts parses the inside of [...] up to and including "]".
func (p *parser) subscripts() (expr, error) {
	line := p.peek().line
	var elts []expr
	for !p.isOp("]") {
		x, err := p.sliceItem()
		if err != nil {
			return nil, err
		}
		elts = append(elts, x)
		if !p.accept(",") {
			if len(elts) == 1 {
				return elts[0], p.expect("]")
			}
			break
		}
	}
	if len(elts) == 0 {
		return nil, p.errorf("empty subscript")
	}
	return &pyTuple{Elts: elts, Line: line}, p.expect("]")
}

func (p *parser) sliceItem() (expr, error) {
	line := p.peek().line
	var lo expr
	var err error
	if !p.isOp(":") {
		if lo, err = p.test(); err != nil || !p.isOp(":") {
			return lo, err
		}
	}
	s := &pySlice{Lo: lo, Line: line}
	p.i++ // ":"
	bound := func() (expr, error) {
		if p.isOp(":") || p.isOp("]") || p.isOp(",") {
			return nil, nil
		}
		return p.test()
	}
	if s.Hi, err = bound(); err != nil {
		return nil, err
	}
	if p.accept(":") {
		s.Step, err = bound()
	}
	return s, err
}

// compFor parses one or more "for ... in ... [if ...]" clauses.
func (p *parser) compFor() ([]pyCompFor, error) {
	var gens []pyCompFor
	for p.accept("for") {
		var g pyCompFor
		var err error
		if g.Target, err = p.targetList(); err != nil {
			return nil, err
		}
		if err := p.expect("in"); err != nil {
			return nil, err
		}
		if g.Iter, err = p.orTest(); err != nil {
			return nil, err
		}
		for p.accept("if") {
			c, err := p.orTest()
			if err != nil {
				return nil, err
			}
			g.Ifs = append(g.Ifs, c)
		}
		gens = append(gens, g)
	}
	return gens, nil
}
