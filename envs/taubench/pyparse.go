package taubench

import (
	"fmt"

	"github.com/artist-rl/artist/internal/pyval"
)

// pyCall is a call expression NAME(args, kw=value, ...).
type pyCall struct {
	Name string
	Args []any
	Kw   *pyval.Dict
	Line int
}

type pyParser struct {
	toks []pyTok
	pos  int
}

func (p *pyParser) peek() pyTok { return p.toks[p.pos] }

func (p *pyParser) take() pyTok {
	t := p.toks[p.pos]
	if t.kind != "eof" {
		p.pos++
	}
	return t
}

func (p *pyParser) isOp(op string) bool { t := p.peek(); return t.kind == "op" && t.text == op }

func (p *pyParser) expect(op string) error {
	if t := p.take(); t.kind != "op" || t.text != op {
		return fmt.Errorf("line %d: expected %q, found %s", t.line, op, describe(t))
	}
	return nil
}

func describe(t pyTok) string {
	switch t.kind {
	case "eof":
		return "the end of the file"
	case "nl":
		return "the end of the line"
	case "str":
		return "a string"
	case "num":
		return "a number"
	}
	return fmt.Sprintf("%q", t.text)
}

// pyModule parses a module of imports and NAME = value statements and
// returns the assignments in order.
func pyModule(src string) (*pyval.Dict, error) {
	toks, err := lexPython(src)
	if err != nil {
		return nil, err
	}
	p := &pyParser{toks: toks}
	out := pyval.NewDict()
	for {
		t := p.peek()
		switch {
		case t.kind == "eof":
			return out, nil
		case t.kind == "nl" || t.kind == "op" && t.text == ";":
			p.take()
		case t.kind == "name" && (t.text == "import" || t.text == "from"):
			for k := p.peek().kind; k != "nl" && k != "eof"; k = p.peek().kind {
				p.take()
			}
		case t.kind == "name" && p.toks[p.pos+1].kind == "op" && p.toks[p.pos+1].text == "=":
			p.pos += 2
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			if k := p.peek(); k.kind != "nl" && k.kind != "eof" && !(k.kind == "op" && k.text == ";") {
				return nil, fmt.Errorf("line %d: unexpected %s after the value of %s", k.line, describe(k), t.text)
			}
			out.Set(t.text, v)
		default:
			return nil, fmt.Errorf("line %d: only imports and NAME = literal statements are supported, found %s", t.line, describe(t))
		}
	}
}

func (p *pyParser) expr() (any, error) {
	t := p.take()
	switch t.kind {
	case "str":
		s := t.text
		for p.peek().kind == "str" {
			s += p.take().text
		}
		return s, nil
	case "num":
		return t.num, nil
	case "name":
		if v, ok := pyval.Constant(t.text); ok {
			return v, nil
		}
		if p.isOp("(") {
			return p.call(t)
		}
		return nil, fmt.Errorf("line %d: name %s is not a literal", t.line, t.text)
	case "op":
		switch t.text {
		case "-", "+":
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !pyval.IsNumber(v) {
				return nil, fmt.Errorf("line %d: unary %s needs a number", t.line, t.text)
			}
			if t.text == "-" {
				return pyval.Neg(v), nil
			}
			return v, nil
		case "[":
			return p.list("]")
		case "(":
			return p.list(")")
		case "{":
			return p.dict()
		}
	}
	return nil, fmt.Errorf("line %d: unexpected %s", t.line, describe(t))
}

// list reads the elements up to close; a parenthesised single element
// without a comma is that element, not a tuple.
func (p *pyParser) list(close string) (any, error) {
	out := []any{}
	comma := false
	for !p.isOp(close) {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.isOp(",") {
			break
		}
		p.take()
		comma = true
	}
	if err := p.expect(close); err != nil {
		return nil, err
	}
	if close == ")" && len(out) == 1 && !comma {
		return out[0], nil
	}
	return out, nil
}

func (p *pyParser) dict() (any, error) {
	out := pyval.NewDict()
	for !p.isOp("}") {
		line := p.peek().line
		k, err := p.expr()
		if err != nil {
			return nil, err
		}
		switch k.(type) {
		case string, int64:
		default:
			return nil, fmt.Errorf("line %d: dict keys must be str or int", line)
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		out.Set(k, v)
		if !p.isOp(",") {
			break
		}
		p.take()
	}
	return out, p.expect("}")
}

func (p *pyParser) call(name pyTok) (any, error) {
	p.take() // (
	c := &pyCall{Name: name.text, Kw: pyval.NewDict(), Line: name.line}
	for !p.isOp(")") {
		t := p.peek()
		if t.kind == "name" && p.toks[p.pos+1].kind == "op" && p.toks[p.pos+1].text == "=" {
			p.pos += 2
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			if c.Kw.Has(t.text) {
				return nil, fmt.Errorf("line %d: keyword argument repeated: %s", t.line, t.text)
			}
			c.Kw.Set(t.text, v)
		} else {
			if c.Kw.Len() > 0 {
				return nil, fmt.Errorf("line %d: positional argument follows keyword argument", t.line)
			}
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, v)
		}
		if !p.isOp(",") {
			break
		}
		p.take()
	}
	return c, p.expect(")")
}
