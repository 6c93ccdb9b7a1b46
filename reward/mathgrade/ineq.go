package mathgrade

import "strings"

// Inequalities: chains of < and ≤ (or of > and ≥, read right to left), and
// alternatives of them joined by "or".

// parseInequalities reads alternatives joined by "or" or ∨, each a chain
// of inequalities, as a union; a single chain is an inequality. Text that
// cannot be read is text.
func parseInequalities(s string, b *budget) *value {
	for _, sep := range []string{"∨", "or"} {
		alts := splitTop(s, sep)
		if len(alts) < 2 || !allContainAny(alts, "<>") {
			continue
		}
		u := &value{kind: vUnion, text: s}
		for _, a := range alts {
			v := parseChainOfInequalities(a, b)
			if v.kind != vIneq {
				return unreadable(s)
			}
			u.items = append(u.items, v)
		}
		return u
	}
	return parseChainOfInequalities(s, b)
}

func allContainAny(parts []string, chars string) bool {
	for _, p := range parts {
		if !strings.ContainsAny(p, chars) {
			return false
		}
	}
	return true
}

// parseChainOfInequalities reads a < b ≤ c…, all relations pointing the
// same way. The parts are stored smallest first. An inequality of one
// variable between constants (x > 3, 1 < x ≤ 2, 3 ≥ x) also gets its
// interval, named by the variable.
func parseChainOfInequalities(s string, b *budget) *value {
	var texts []string
	var strict []bool
	dir, start, depth := byte(0), 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '=':
			if depth == 0 {
				return unreadable(s) // an equation in the chain, or a stray =
			}
		case '<', '>':
			if depth != 0 {
				continue
			}
			if dir != 0 && dir != c {
				return unreadable(s)
			}
			dir = c
			texts = append(texts, s[start:i])
			n := 1
			if i+1 < len(s) && s[i+1] == '=' {
				n = 2
			}
			strict = append(strict, n == 1)
			i += n - 1
			start = i + 1
		}
	}
	texts = append(texts, s[start:])
	if len(texts) < 2 {
		return unreadable(s)
	}
	parts := make([]*expr, len(texts))
	for i, t := range texts {
		x, err := parseExpr(t, b)
		if t == "" || err != nil {
			return unreadable(s)
		}
		parts[i] = x
	}
	if dir == '>' {
		reverse(parts)
		reverse(texts)
		reverse(strict)
	}
	in := &inequality{parts: parts, strict: strict}
	v := &value{kind: vIneq, text: s, ineq: in}
	in.interval, v.name = intervalOf(parts, texts, strict)
	return v
}

func reverse[T any](xs []T) {
	for i, j := 0, len(xs)-1; i < j; i, j = i+1, j-1 {
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// intervalOf returns the interval of an inequality of one variable between
// constants, and the variable's name; or nil and "".
func intervalOf(parts []*expr, texts []string, strict []bool) (*value, string) {
	bound := func(i int) *value { return &value{kind: vScalar, text: texts[i], x: parts[i]} }
	inf := func(sign string) *value {
		x := &expr{op: opConst, name: constInf}
		if sign == "-" {
			x = &expr{op: opNeg, args: []*expr{x}}
		}
		return &value{kind: vScalar, text: sign + "∞", x: x}
	}
	isVar := func(i int) bool { return parts[i].op == opVar }
	isConst := func(i int) bool { return !hasVar(parts[i]) }
	var lo, hi *value
	open, close := byte('('), byte(')')
	var name string
	switch {
	case len(parts) == 2 && isVar(0) && isConst(1):
		lo, hi, name = inf("-"), bound(1), texts[0]
		if !strict[0] {
			close = ']'
		}
	case len(parts) == 2 && isConst(0) && isVar(1):
		lo, hi, name = bound(0), inf(""), texts[1]
		if !strict[0] {
			open = '['
		}
	case len(parts) == 3 && isConst(0) && isVar(1) && isConst(2):
		lo, hi, name = bound(0), bound(2), texts[1]
		if !strict[0] {
			open = '['
		}
		if !strict[1] {
			close = ']'
		}
	default:
		return nil, ""
	}
	text := string(open) + lo.text + "," + hi.text + string(close)
	return &value{kind: vSeq, text: text, open: open, close: close, items: []*value{lo, hi}}, name
}

// sameIneq compares two inequalities: by their intervals when both have
// one, else relation by relation, each the same strictness with
// differences (larger minus smaller) positively proportional (2x < 6 is
// x < 3). Inequalities of different variables differ.
func sameIneq(a, b *value, bud *budget) bool {
	if a.name != "" && b.name != "" && a.name != b.name {
		return false
	}
	x, y := a.ineq, b.ineq
	if x.interval != nil && y.interval != nil {
		return same(x.interval, y.interval, bud)
	}
	if len(x.parts) != len(y.parts) {
		return false
	}
	for i := range x.strict {
		if x.strict[i] != y.strict[i] {
			return false
		}
		d1 := &expr{op: opSub, args: []*expr{x.parts[i+1], x.parts[i]}}
		d2 := &expr{op: opSub, args: []*expr{y.parts[i+1], y.parts[i]}}
		if !proportional(d1, d2, true, bud) {
			return false
		}
	}
	return true
}
