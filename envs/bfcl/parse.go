package bfcl

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/artist-rl/artist/internal/pyval"
)

// Call is one parsed function call.
type Call struct {
	Name   string
	Args   []any   // positional arguments, in order
	Kwargs []Kwarg // keyword arguments, in order
}

// Kwarg is one keyword argument.
type Kwarg struct {
	Name  string
	Value any
}

// String formats the call in the BFCL call syntax with Python literals.
func (c Call) String() string {
	var b strings.Builder
	b.WriteString(c.Name)
	b.WriteByte('(')
	for i, a := range c.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(PyRepr(a))
	}
	for i, kw := range c.Kwargs {
		if i > 0 || len(c.Args) > 0 {
			b.WriteString(", ")
		}
		b.WriteString(kw.Name + "=" + PyRepr(kw.Value))
	}
	b.WriteByte(')')
	return b.String()
}

// ErrSyntax marks text that is not a call.
var ErrSyntax = errors.New("bfcl: invalid syntax")

// ParseCall parses one call written as a Python call expression,
// `cd(folder='document')`, whose arguments are Python literals.
func ParseCall(s string) (Call, error) {
	p := &parser{src: s}
	c, err := p.call()
	if err == nil {
		p.space()
		if p.pos < len(p.src) {
			err = p.errf("unexpected %q after the call", p.rest(10))
		}
	}
	return c, err
}

// ParseCalls parses a policy's tool input into calls. It accepts a Python
// list of calls (`[f(a=1), g()]`), calls separated by newlines or
// semicolons, a JSON object {"name": ..., "arguments": {...}} and a JSON
// array of such objects.
func ParseCalls(s string) ([]Call, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, fmt.Errorf("%w: no call", ErrSyntax)
	}
	if t[0] == '{' || (t[0] == '[' && strings.HasPrefix(strings.TrimSpace(t[1:]), "{")) {
		return parseJSONCalls(t)
	}
	p := &parser{src: t}
	var out []Call
	list := false
	if t[0] == '[' {
		list = true
		p.pos++
	}
	for {
		p.space()
		if list && p.peek() == ']' {
			p.pos++
			break
		}
		if !list && p.pos >= len(p.src) {
			break
		}
		c, err := p.call()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		p.space()
		switch {
		case p.peek() == ',' || p.peek() == ';' || p.peek() == '\n':
			p.pos++
		case list && p.peek() == ']':
		case p.pos >= len(p.src):
		default:
			return nil, p.errf("unexpected %q between calls", p.rest(10))
		}
	}
	p.space()
	if p.pos < len(p.src) {
		return nil, p.errf("unexpected %q after the calls", p.rest(10))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no call", ErrSyntax)
	}
	return out, nil
}

// jsonCall is the JSON form of a call.
type jsonCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func parseJSONCalls(t string) ([]Call, error) {
	var raws []json.RawMessage
	if t[0] == '[' {
		if err := json.Unmarshal([]byte(t), &raws); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
		}
	} else {
		raws = []json.RawMessage{json.RawMessage(t)}
	}
	out := make([]Call, 0, len(raws))
	for _, r := range raws {
		var jc jsonCall
		if err := json.Unmarshal(r, &jc); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
		}
		if !isIdent(jc.Name) {
			return nil, fmt.Errorf("%w: bad function name %q", ErrSyntax, jc.Name)
		}
		args := jc.Arguments
		var str string
		if len(args) > 0 && args[0] == '"' && json.Unmarshal(args, &str) == nil {
			args = json.RawMessage(str) // arguments given as a JSON string
		}
		c := Call{Name: jc.Name}
		if len(args) > 0 && string(args) != "null" {
			v, err := DecodeJSON(args)
			if err != nil {
				return nil, fmt.Errorf("%w: arguments: %v", ErrSyntax, err)
			}
			d, ok := v.(*Dict)
			if !ok {
				return nil, fmt.Errorf("%w: arguments must be an object", ErrSyntax)
			}
			for _, k := range d.Keys() {
				val, _ := d.Get(k)
				c.Kwargs = append(c.Kwargs, Kwarg{k.(string), val})
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// parser reads Python call syntax; pos is a byte offset into src.
type parser struct {
	src   string
	pos   int
	depth int
}

const maxDepth = 100

func (p *parser) errf(format string, a ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrSyntax, p.pos, fmt.Sprintf(format, a...))
}

func (p *parser) rest(n int) string {
	r := p.src[p.pos:]
	if len(r) > n {
		r = r[:n]
	}
	return r
}

func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// space skips blanks (not newlines, which may separate calls).
func (p *parser) space() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

// spaceNL skips blanks and newlines (inside brackets).
func (p *parser) spaceNL() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *parser) ident() string {
	start := p.pos
	for p.pos < len(p.src) {
		r, n := utf8.DecodeRuneInString(p.src[p.pos:])
		if r == '_' || unicode.IsLetter(r) || (p.pos > start && unicode.IsDigit(r)) {
			p.pos += n
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *parser) call() (Call, error) {
	p.spaceNL()
	name := p.ident()
	for name != "" && p.peek() == '.' {
		p.pos++
		part := p.ident()
		if part == "" {
			return Call{}, p.errf("expected a name after '.'")
		}
		name += "." + part
	}
	if name == "" {
		return Call{}, p.errf("expected a function name")
	}
	p.space()
	if p.peek() != '(' {
		return Call{}, p.errf("expected '(' after %q", name)
	}
	p.pos++
	c := Call{Name: name}
	for {
		p.spaceNL()
		if p.peek() == ')' {
			p.pos++
			return c, nil
		}
		if err := p.argument(&c); err != nil {
			return Call{}, err
		}
		p.spaceNL()
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
		default:
			return Call{}, p.errf("expected ',' or ')' in the arguments of %s", name)
		}
	}
}

func (p *parser) argument(c *Call) error {
	save := p.pos
	if kw := p.ident(); kw != "" {
		p.spaceNL()
		if p.peek() == '=' && !strings.HasPrefix(p.src[p.pos:], "==") {
			p.pos++
			v, err := p.value()
			if err != nil {
				return err
			}
			for _, k := range c.Kwargs {
				if k.Name == kw {
					return p.errf("keyword argument repeated: %s", kw)
				}
			}
			c.Kwargs = append(c.Kwargs, Kwarg{kw, v})
			return nil
		}
		p.pos = save
	}
	if len(c.Kwargs) > 0 {
		return p.errf("positional argument follows keyword argument")
	}
	v, err := p.value()
	if err != nil {
		return err
	}
	c.Args = append(c.Args, v)
	return nil
}

// value parses one Python literal.
func (p *parser) value() (any, error) {
	p.spaceNL()
	if p.depth++; p.depth > maxDepth {
		return nil, p.errf("nesting too deep")
	}
	defer func() { p.depth-- }()
	ch := p.peek()
	switch {
	case ch == '\'' || ch == '"':
		return p.strings()
	case (ch == 'r' || ch == 'R' || ch == 'u' || ch == 'U') && p.pos+1 < len(p.src) && (p.src[p.pos+1] == '\'' || p.src[p.pos+1] == '"'):
		return p.strings()
	case ch == '[':
		p.pos++
		return p.sequence(']')
	case ch == '(':
		p.pos++
		return p.sequence(')')
	case ch == '{':
		p.pos++
		return p.dict()
	case ch == '-' || ch == '+':
		p.pos++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		return negate(v, ch == '-', p)
	case ch == '.' || (ch >= '0' && ch <= '9'):
		return p.number()
	}
	id := p.ident()
	if v, ok := pyval.Constant(id); ok {
		return v, nil
	}
	switch id {
	case "":
		return nil, p.errf("expected a value, found %q", p.rest(10))
	default:
		return nil, p.errf("name %q is not a literal", id)
	}
}

func negate(v any, neg bool, p *parser) (any, error) {
	switch x := v.(type) {
	case int64:
		if neg {
			return -x, nil
		}
		return x, nil
	case float64:
		if neg {
			return -x, nil
		}
		return x, nil
	case bool:
		n := int64(0)
		if x {
			n = 1
		}
		if neg {
			n = -n
		}
		return n, nil
	}
	return nil, p.errf("bad operand type for unary sign")
}

func (p *parser) sequence(end byte) (any, error) {
	l := []any{}
	for {
		p.spaceNL()
		if p.peek() == end {
			p.pos++
			return l, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		p.spaceNL()
		switch p.peek() {
		case ',':
			p.pos++
		case end:
		default:
			return nil, p.errf("expected ',' or %q", end)
		}
	}
}

func (p *parser) dict() (any, error) {
	d := NewDict()
	for {
		p.spaceNL()
		if p.peek() == '}' {
			p.pos++
			return d, nil
		}
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		switch kk := k.(type) {
		case string, int64:
		case bool: // Python: True == 1 as a key
			k = map[bool]int64{false: 0, true: 1}[kk]
		default:
			return nil, p.errf("unsupported dict key %s", PyRepr(k))
		}
		p.spaceNL()
		if p.peek() != ':' {
			return nil, p.errf("expected ':' in a dict")
		}
		p.pos++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		d.Set(k, v)
		p.spaceNL()
		switch p.peek() {
		case ',':
			p.pos++
		case '}':
		default:
			return nil, p.errf("expected ',' or '}'")
		}
	}
}
