package derive

import "fmt"

// parser is a recursive-descent parser for the subset of Python 3.11 that
// the reference environments use: every statement except match, async and
// lambda, and every expression except lambda, yield, await and ":=".
// Unsupported syntax is an error naming the line, never a silent skip.
type parser struct {
	toks []token
	i    int
}

// keywords are the names that cannot be identifiers.
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// parseModule parses a whole source file into its statements.
func parseModule(src string) ([]stmt, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	var body []stmt
	for p.peek().kind != tEOF {
		if p.peek().kind == tNewline {
			p.i++
			continue
		}
		ss, err := p.statement()
		if err != nil {
			return nil, err
		}
		body = append(body, ss...)
	}
	return body, nil
}

// parseExpression parses src as one expression; line numbers in errors
// are counted from line.
func parseExpression(src string, line int) (expr, error) {
	toks, err := tokenizeAt(src, 1)
	if err != nil {
		return nil, err
	}
	for i := range toks {
		toks[i].line += line - 1
	}
	p := &parser{toks: toks}
	x, err := p.test()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errorf("unexpected %s after the expression", describe(t))
	}
	return x, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }

func (p *parser) isOp(s string) bool { t := p.peek(); return t.kind == tOp && t.text == s }
func (p *parser) isKw(s string) bool { t := p.peek(); return t.kind == tName && t.text == s }

// accept consumes the operator or keyword s when it is next.
func (p *parser) accept(s string) bool {
	if p.isOp(s) || p.isKw(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(s string) error {
	if !p.accept(s) {
		return p.errorf("expected %q, found %s", s, describe(p.peek()))
	}
	return nil
}

func (p *parser) errorf(format string, a ...any) error {
	return fmt.Errorf("line %d: %s", p.peek().line, fmt.Sprintf(format, a...))
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tNewline:
		return "end of line"
	case tIndent:
		return "indent"
	case tDedent:
		return "dedent"
	}
	return fmt.Sprintf("%q", t.text)
}

// ident consumes an identifier.
func (p *parser) ident() (string, error) {
	t := p.peek()
	if t.kind != tName || keywords[t.text] {
		return "", p.errorf("expected a name, found %s", describe(t))
	}
	p.i++
	return t.text, nil
}

// statement parses one statement line or compound statement. A line of
// simple statements separated by ";" gives several.
func (p *parser) statement() ([]stmt, error) {
	t := p.peek()
	if t.kind == tOp && t.text == "@" {
		for p.accept("@") {
			if _, err := p.test(); err != nil {
				return nil, err
			}
			if p.next().kind != tNewline {
				return nil, p.errorf("expected end of line after decorator")
			}
		}
		if !p.isKw("def") && !p.isKw("class") {
			return nil, p.errorf("expected def or class after decorators")
		}
		return p.statement()
	}
	if t.kind == tName {
		var s stmt
		var err error
		switch t.text {
		case "if":
			s, err = p.ifStmt()
		case "while":
			s, err = p.whileStmt()
		case "for":
			s, err = p.forStmt()
		case "try":
			s, err = p.tryStmt()
		case "with":
			s, err = p.withStmt()
		case "def":
			s, err = p.funcDef()
		case "class":
			s, err = p.classDef()
		case "async":
			return nil, p.errorf("async statements are not supported")
		default:
			return p.simpleLine()
		}
		if err != nil {
			return nil, err
		}
		return []stmt{s}, nil
	}
	return p.simpleLine()
}

// block parses ": NEWLINE INDENT statements DEDENT" or ": simple line".
func (p *parser) block() ([]stmt, error) {
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	if p.peek().kind != tNewline {
		return p.simpleLine()
	}
	p.i++
	if p.next().kind != tIndent {
		return nil, p.errorf("expected an indented block")
	}
	var body []stmt
	for p.peek().kind != tDedent && p.peek().kind != tEOF {
		ss, err := p.statement()
		if err != nil {
			return nil, err
		}
		body = append(body, ss...)
	}
	p.i++
	return body, nil
}

func (p *parser) ifStmt() (stmt, error) {
	line := p.next().line // if or elif
	test, err := p.namedTest()
	if err != nil {
		return nil, err
	}
	s := &pyIf{Test: test, Line: line}
	if s.Body, err = p.block(); err != nil {
		return nil, err
	}
	switch {
	case p.isKw("elif"):
		e, err := p.ifStmt()
		if err != nil {
			return nil, err
		}
		s.Else = []stmt{e}
	case p.accept("else"):
		if s.Else, err = p.block(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (p *parser) whileStmt() (stmt, error) {
	line := p.next().line
	test, err := p.namedTest()
	if err != nil {
		return nil, err
	}
	s := &pyWhile{Test: test, Line: line}
	if s.Body, err = p.block(); err != nil {
		return nil, err
	}
	if p.accept("else") {
		s.Else, err = p.block()
	}
	return s, err
}

func (p *parser) forStmt() (stmt, error) {
	line := p.next().line
	target, err := p.targetList()
	if err != nil {
		return nil, err
	}
	if err := p.expect("in"); err != nil {
		return nil, err
	}
	iter, err := p.testList(true)
	if err != nil {
		return nil, err
	}
	s := &pyFor{Target: target, Iter: iter, Line: line}
	if s.Body, err = p.block(); err != nil {
		return nil, err
	}
	if p.accept("else") {
		s.Else, err = p.block()
	}
	return s, err
}

func (p *parser) tryStmt() (stmt, error) {
	line := p.next().line
	s := &pyTry{Line: line}
	var err error
	if s.Body, err = p.block(); err != nil {
		return nil, err
	}
	for p.isKw("except") {
		h := &pyHandler{Line: p.next().line}
		if p.accept("*") {
			return nil, p.errorf("except* is not supported")
		}
		if !p.isOp(":") {
			if h.Type, err = p.test(); err != nil {
				return nil, err
			}
			if p.accept("as") {
				if h.Name, err = p.ident(); err != nil {
					return nil, err
				}
			}
		}
		if h.Body, err = p.block(); err != nil {
			return nil, err
		}
		s.Handlers = append(s.Handlers, h)
	}
	if p.accept("else") {
		if s.Else, err = p.block(); err != nil {
			return nil, err
		}
	}
	if p.accept("finally") {
		if s.Final, err = p.block(); err != nil {
			return nil, err
		}
	}
	if len(s.Handlers) == 0 && s.Final == nil {
		return nil, p.errorf("try without except or finally")
	}
	return s, nil
}

func (p *parser) withStmt() (stmt, error) {
	s := &pyWith{Line: p.next().line}
	for {
		x, err := p.test()
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, x)
		if p.accept("as") {
			if _, err := p.targetList(); err != nil {
				return nil, err
			}
		}
		if !p.accept(",") {
			break
		}
	}
	var err error
	s.Body, err = p.block()
	return s, err
}

func (p *parser) funcDef() (stmt, error) {
	line := p.next().line
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	f := &pyFuncDef{Name: name, Line: line}
	for !p.isOp(")") {
		var prm pyParam
		switch {
		case p.accept("**"):
			prm.Kind = "**"
		case p.accept("*"):
			prm.Kind = "*"
			if p.isOp(",") || p.isOp(")") { // bare * before keyword-only parameters
				p.accept(",")
				continue
			}
		case p.accept("/"):
			p.accept(",")
			continue
		}
		if prm.Name, err = p.ident(); err != nil {
			return nil, err
		}
		if p.accept(":") {
			if _, err := p.test(); err != nil {
				return nil, err
			}
		}
		if p.accept("=") {
			if prm.Default, err = p.test(); err != nil {
				return nil, err
			}
		}
		f.Params = append(f.Params, prm)
		if !p.accept(",") {
			break
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if p.accept("->") {
		if _, err := p.test(); err != nil {
			return nil, err
		}
	}
	f.Body, err = p.block()
	return f, err
}

func (p *parser) classDef() (stmt, error) {
	line := p.next().line
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	c := &pyClassDef{Name: name, Line: line}
	if p.accept("(") {
		args, _, err := p.callArgs()
		if err != nil {
			return nil, err
		}
		c.Bases = args
	}
	c.Body, err = p.block()
	return c, err
}
