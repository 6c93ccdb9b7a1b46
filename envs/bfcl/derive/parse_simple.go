package derive

import "strings"

// simpleLine parses simple statements separated by ";" up to NEWLINE.
func (p *parser) simpleLine() ([]stmt, error) {
	var out []stmt
	for {
		s, err := p.simpleStmt()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if !p.accept(";") || p.peek().kind == tNewline {
			break
		}
	}
	if t := p.next(); t.kind != tNewline {
		p.i--
		return nil, p.errorf("unexpected %s", describe(t))
	}
	return out, nil
}

func (p *parser) simpleStmt() (stmt, error) {
	t := p.peek()
	if t.kind == tName {
		switch t.text {
		case "pass", "break", "continue":
			p.i++
			return &pySimple{Kind: t.text, Line: t.line}, nil
		case "return":
			p.i++
			s := &pyReturn{Line: t.line}
			if !p.atLineEnd() {
				var err error
				if s.Value, err = p.testList(true); err != nil {
					return nil, err
				}
			}
			return s, nil
		case "raise":
			p.i++
			s := &pyRaise{Line: t.line}
			if !p.atLineEnd() {
				var err error
				if s.Exc, err = p.test(); err != nil {
					return nil, err
				}
				if p.accept("from") {
					if s.Cause, err = p.test(); err != nil {
						return nil, err
					}
				}
			}
			return s, nil
		case "global", "nonlocal":
			p.i++
			for {
				if _, err := p.ident(); err != nil {
					return nil, err
				}
				if !p.accept(",") {
					return &pySimple{Kind: t.text, Line: t.line}, nil
				}
			}
		case "del":
			p.i++
			if _, err := p.testList(true); err != nil {
				return nil, err
			}
			return &pySimple{Kind: "del", Line: t.line}, nil
		case "assert":
			p.i++
			if _, err := p.test(); err != nil {
				return nil, err
			}
			if p.accept(",") {
				if _, err := p.test(); err != nil {
					return nil, err
				}
			}
			return &pySimple{Kind: "assert", Line: t.line}, nil
		case "import", "from":
			return p.importStmt()
		}
	}
	return p.exprStmt()
}

func (p *parser) atLineEnd() bool { return p.peek().kind == tNewline || p.isOp(";") }

// dotted parses a dotted module name, with leading dots for relative
// imports.
func (p *parser) dotted() (string, error) {
	var b strings.Builder
	for p.isOp(".") || p.isOp("...") {
		b.WriteString(p.next().text)
	}
	if b.Len() > 0 && p.isKw("import") {
		return b.String(), nil
	}
	for {
		n, err := p.ident()
		if err != nil {
			return "", err
		}
		b.WriteString(n)
		if !p.accept(".") {
			return b.String(), nil
		}
		b.WriteByte('.')
	}
}

func (p *parser) importStmt() (stmt, error) {
	t := p.next()
	s := &pyImport{Line: t.line}
	asName := func(name string) error {
		as := name
		if p.accept("as") {
			var err error
			if as, err = p.ident(); err != nil {
				return err
			}
		}
		s.Names = append(s.Names, pyImportName{Name: name, As: as})
		return nil
	}
	if t.text == "import" {
		for {
			m, err := p.dotted()
			if err != nil {
				return nil, err
			}
			if err := asName(m); err != nil {
				return nil, err
			}
			if !p.accept(",") {
				return s, nil
			}
		}
	}
	var err error
	if s.Module, err = p.dotted(); err != nil {
		return nil, err
	}
	if err := p.expect("import"); err != nil {
		return nil, err
	}
	if p.accept("*") {
		return nil, p.errorf("import * is not supported")
	}
	paren := p.accept("(")
	for {
		n, err := p.ident()
		if err != nil {
			return nil, err
		}
		if err := asName(n); err != nil {
			return nil, err
		}
		if !p.accept(",") || paren && p.isOp(")") {
			break
		}
	}
	if paren {
		if err := p.expect(")"); err != nil {
			return nil, err
		}
	}
	return s, nil
}

var augOps = map[string]bool{"+=": true, "-=": true, "*=": true, "/=": true, "//=": true, "%=": true,
	"**=": true, "&=": true, "|=": true, "^=": true, ">>=": true, "<<=": true, "@=": true}

// exprStmt parses an expression statement, an assignment, an annotated
// assignment or an augmented assignment.
func (p *parser) exprStmt() (stmt, error) {
	line := p.peek().line
	first, err := p.testList(true)
	if err != nil {
		return nil, err
	}
	switch {
	case p.accept(":"):
		s := &pyAnnAssign{Target: first, Line: line}
		if s.Ann, err = p.test(); err != nil {
			return nil, err
		}
		if p.accept("=") {
			if s.Value, err = p.testList(true); err != nil {
				return nil, err
			}
		}
		return s, nil
	case p.peek().kind == tOp && augOps[p.peek().text]:
		op := strings.TrimSuffix(p.next().text, "=")
		v, err := p.testList(true)
		if err != nil {
			return nil, err
		}
		return &pyAugAssign{Target: first, Op: op, Value: v, Line: line}, nil
	case p.isOp("="):
		s := &pyAssign{Targets: []expr{first}, Line: line}
		for p.accept("=") {
			v, err := p.testList(true)
			if err != nil {
				return nil, err
			}
			s.Targets = append(s.Targets, v)
		}
		s.Value = s.Targets[len(s.Targets)-1]
		s.Targets = s.Targets[:len(s.Targets)-1]
		return s, nil
	}
	return &pyExprStmt{X: first, Line: line}, nil
}
