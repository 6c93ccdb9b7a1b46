package derive

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/internal/pyval"
)

// atom parses a name, number, string, "..." or bracketed display.
func (p *parser) atom() (expr, error) {
	t := p.peek()
	switch t.kind {
	case tName:
		switch t.text {
		case "True", "False":
			p.i++
			return &pyConst{Value: t.text == "True", Line: t.line}, nil
		case "None":
			p.i++
			return &pyConst{Line: t.line}, nil
		}
		name, err := p.ident()
		return &pyName{ID: name, Line: t.line}, err
	case tNumber:
		p.i++
		v, err := parseNumber(t.text)
		if err != nil {
			p.i--
			return nil, p.errorf("%v", err)
		}
		return &pyConst{Value: v, Line: t.line}, nil
	case tString:
		return p.strings()
	case tOp:
		switch t.text {
		case "...":
			p.i++
			return &pyConst{Value: bfcl.Ellipsis{}, Line: t.line}, nil
		case "(":
			p.i++
			return p.parenthesised(t.line)
		case "[":
			p.i++
			return p.display(t.line, "]")
		case "{":
			p.i++
			return p.display(t.line, "}")
		}
	}
	return nil, p.errorf("unexpected %s", describe(t))
}

func (p *parser) parenthesised(line int) (expr, error) {
	if p.accept(")") {
		return &pyTuple{Line: line}, nil
	}
	x, err := p.testList(true)
	if err != nil {
		return nil, err
	}
	if p.isKw("for") {
		gens, err := p.compFor()
		if err != nil {
			return nil, err
		}
		x = &pyComp{Kind: "gen", Elt: x, Gens: gens, Line: line}
	}
	return x, p.expect(")")
}

// display parses a list (close "]"), or a dict or set (close "}"), with
// their comprehensions, after the opening bracket.
func (p *parser) display(line int, closer string) (expr, error) {
	if p.accept(closer) {
		if closer == "]" {
			return &pyList{Line: line}, nil
		}
		return &pyDict{Line: line}, nil
	}
	var keys, vals []expr
	isDict := false
	for i := 0; !p.isOp(closer); i++ {
		var k, v expr
		var err error
		switch {
		case closer == "}" && p.accept("**"):
			isDict = true
			if v, err = p.bitOr(); err != nil {
				return nil, err
			}
		case p.isOp("*"):
			sl := p.next().line
			x, err := p.bitOr()
			if err != nil {
				return nil, err
			}
			k = &pyStarred{X: x, Line: sl}
		default:
			if k, err = p.namedTest(); err != nil {
				return nil, err
			}
			if closer == "}" && (i == 0 || isDict) && p.accept(":") {
				isDict = true
				if v, err = p.test(); err != nil {
					return nil, err
				}
			}
		}
		if i == 0 && p.isKw("for") {
			gens, err := p.compFor()
			if err != nil {
				return nil, err
			}
			c := &pyComp{Gens: gens, Line: line}
			switch {
			case isDict:
				c.Kind, c.Key, c.Value = "dict", k, v
			case closer == "]":
				c.Kind, c.Elt = "list", k
			default:
				c.Kind, c.Elt = "set", k
			}
			return c, p.expect(closer)
		}
		if isDict != (v != nil) {
			return nil, p.errorf("mixed dict and set display")
		}
		keys, vals = append(keys, k), append(vals, v)
		if !p.accept(",") {
			break
		}
	}
	if err := p.expect(closer); err != nil {
		return nil, err
	}
	switch {
	case closer == "]":
		return &pyList{Elts: keys, Line: line}, nil
	case isDict:
		return &pyDict{Keys: keys, Values: vals, Line: line}, nil
	}
	return &pySet{Elts: keys, Line: line}, nil
}

// strings parses adjacent string literals into one *pyConst, or a
// *pyJoinedStr when any of them is an f-string.
func (p *parser) strings() (expr, error) {
	line := p.peek().line
	var parts []expr
	isF, isBytes := false, false
	for i := 0; p.peek().kind == tString; i++ {
		t := p.next()
		l := pyval.SplitLiteral(t.text)
		if i > 0 && l.Bytes != isBytes {
			return nil, p.errorf("cannot mix bytes and nonbytes literals")
		}
		isBytes = l.Bytes
		if l.Bytes {
			return nil, p.errorf("bytes literals are not supported")
		}
		if l.F {
			isF = true
			ps, err := fstringParts(l.Body, l.Raw, t.line)
			if err != nil {
				return nil, err
			}
			parts = append(parts, ps...)
			continue
		}
		s, err := l.Value()
		if err != nil {
			return nil, p.errorf("%v", err)
		}
		parts = append(parts, &pyConst{Value: s, Line: t.line})
	}
	// Merge adjacent literal parts, as Python's parser does.
	var merged []expr
	for _, x := range parts {
		if c, ok := x.(*pyConst); ok && len(merged) > 0 {
			if prev, ok := merged[len(merged)-1].(*pyConst); ok {
				merged[len(merged)-1] = &pyConst{Value: prev.Value.(string) + c.Value.(string), Line: prev.Line}
				continue
			}
		}
		merged = append(merged, x)
	}
	if !isF {
		if len(merged) == 0 {
			return &pyConst{Value: "", Line: line}, nil
		}
		return merged[0], nil
	}
	return &pyJoinedStr{Parts: merged, Line: line}, nil
}

// parseNumber converts a numeric literal: ints become int64 (an error
// when they do not fit), floats float64; imaginary literals are errors.
func parseNumber(text string) (any, error) {
	s := strings.ReplaceAll(text, "_", "")
	lower := strings.ToLower(s)
	switch {
	case strings.HasSuffix(lower, "j"):
		return nil, fmt.Errorf("imaginary literal %s is not supported", text)
	case len(lower) > 1 && lower[0] == '0' && strings.ContainsRune("xob", rune(lower[1])):
		base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[lower[1]]
		return parseInt(s[2:], base, text)
	case strings.ContainsAny(lower, ".e"):
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !math.IsInf(f, 0) {
			return nil, fmt.Errorf("invalid float literal %s", text)
		}
		return f, nil
	case len(s) > 1 && s[0] == '0' && strings.Trim(s, "0") != "":
		return nil, fmt.Errorf("leading zeros in decimal integer literal %s", text)
	}
	return parseInt(s, 10, text)
}

func parseInt(digits string, base int, text string) (any, error) {
	n, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return nil, fmt.Errorf("invalid integer literal %s", text)
	}
	if !n.IsInt64() {
		return nil, fmt.Errorf("integer literal %s does not fit in 64 bits", text)
	}
	return n.Int64(), nil
}
