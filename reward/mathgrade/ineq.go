package mathgrade

import (
	"math/big"
	"strings"
)

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
	in.interval, v.name = intervalOf(parts, texts, strict, b)
	if in.interval == nil {
		v.name = ""
	}
	return v
}

func reverse[T any](xs []T) {
	for i, j := 0, len(xs)-1; i < j; i, j = i+1, j-1 {
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// intervalOf returns the interval of an inequality of one subject between
// constants, and the subject's name; or nil and "". The subject is a
// variable, or a name such as f(x) or g(x); 0 < g(x) < 2 is (0, 2) named
// g(x). A subject |v| of a variable v gives the set of v, named v:
// 2 ≤ |w| ≤ 3 is [-3,-2] ∪ [2,3] (see absInterval).
func intervalOf(parts []*expr, texts []string, strict []bool, b *budget) (*value, string) {
	isConst := func(i int) bool { return !hasVar(parts[i]) }
	isSubject := func(i int) bool {
		return parts[i].op == opVar || hasVar(parts[i]) && varNameRe.MatchString(texts[i])
	}
	var lo, hi *value
	var loStrict, hiStrict bool
	var subject int
	switch {
	case len(parts) == 2 && isConst(1):
		subject, hi, hiStrict = 0, bound(parts, texts, 1), strict[0]
	case len(parts) == 2 && isConst(0):
		subject, lo, loStrict = 1, bound(parts, texts, 0), strict[0]
	case len(parts) == 3 && isConst(0) && isConst(2):
		subject, lo, hi, loStrict, hiStrict = 1, bound(parts, texts, 0), bound(parts, texts, 2), strict[0], strict[1]
	default:
		return nil, ""
	}
	if x := parts[subject]; x.op == opAbs && x.args[0].op == opVar {
		return absInterval(lo, hi, loStrict, hiStrict, b), x.args[0].name
	}
	if !isSubject(subject) {
		return nil, ""
	}
	return interval(lo, hi, loStrict, hiStrict), texts[subject]
}

// bound is the value of part i of an inequality.
func bound(parts []*expr, texts []string, i int) *value {
	return &value{kind: vScalar, text: texts[i], x: parts[i]}
}

// infinity is ∞, or -∞ when neg.
func infinity(neg bool) *value {
	x := &expr{op: opConst, name: constInf}
	if neg {
		return &value{kind: vScalar, text: "-∞", x: &expr{op: opNeg, args: []*expr{x}}}
	}
	return &value{kind: vScalar, text: "∞", x: x}
}

// interval is the interval from lo to hi (nil for an infinite end), each
// end open when strict.
func interval(lo, hi *value, loStrict, hiStrict bool) *value {
	open, close := byte('('), byte(')')
	if lo == nil {
		lo = infinity(true)
	} else if !loStrict {
		open = '['
	}
	if hi == nil {
		hi = infinity(false)
	} else if !hiStrict {
		close = ']'
	}
	text := string(open) + lo.text + "," + hi.text + string(close)
	return &value{kind: vSeq, text: text, open: open, close: close, items: []*value{lo, hi}}
}

// absInterval is the set of v where lo < |v| < hi (nil for no bound),
// with positive rational bounds: (-hi, hi), or the rays beyond ±lo, or
// [-hi,-lo] ∪ [lo,hi] (ends open where strict). Other bounds give nil.
func absInterval(lo, hi *value, loStrict, hiStrict bool, b *budget) *value {
	neg := func(v *value) *value {
		r, ok := exact(v.x, b)
		if !ok || r.Sign() <= 0 {
			return nil
		}
		m := new(big.Rat).Neg(r)
		return &value{kind: vScalar, text: m.RatString(), x: &expr{op: opNum, num: m}}
	}
	switch {
	case lo == nil:
		if m := neg(hi); m != nil {
			return interval(m, hi, hiStrict, hiStrict)
		}
	case hi == nil:
		if m := neg(lo); m != nil {
			return union(interval(nil, m, false, loStrict), interval(lo, nil, loStrict, false))
		}
	default:
		ml, mh := neg(lo), neg(hi)
		if ml != nil && mh != nil {
			return union(interval(mh, ml, hiStrict, loStrict), interval(lo, hi, loStrict, hiStrict))
		}
	}
	return nil
}

// union is the union of two intervals.
func union(a, b *value) *value {
	return &value{kind: vUnion, text: a.text + "∪" + b.text, items: []*value{a, b}}
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
