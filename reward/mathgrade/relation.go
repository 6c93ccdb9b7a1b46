package mathgrade

import (
	"math/big"
	"regexp"
	"strings"
)

// Answers written as relations (named values, equations, inequalities) and
// numerals in a base.

// tupleNamesRe matches a tuple of variable names, (x,y) or (a_1,a_2,a_3).
var tupleNamesRe = regexp.MustCompile(`^\(((?:[A-Za-z](?:_(?:\{[^{}]*\}|[A-Za-z0-9]))?,)+[A-Za-z](?:_(?:\{[^{}]*\}|[A-Za-z0-9]))?)\)$`)

// parseRelation reads a relation, or returns nil when s holds none:
//
//   - v \in S is read by parseMembership, first;
//   - (x,y) = (1,2) is the tuple (1,2) with its items named x and y;
//   - v = x, for a variable or function v, is the value x named v;
//   - q = c, for an expression q of variables without a constant term and a
//     non-zero constant c, is c named q: the answer gives the quantity
//     asked for (m+n = 104 is 104); so is c = q, and q = c1 = c2 when the
//     constants agree;
//   - a ratio of names equal to a ratio (A:B = 3:5) is the ratio;
//   - other equations a = b are kept as equations;
//   - chains of < and ≤, or of > and ≥, are inequalities; alternatives
//     joined by "or" are a union.
//
// A relation that cannot be read is text.
func parseRelation(s string, b *budget, depth int) *value {
	if strings.ContainsAny(s, "<>") {
		return parseInequalities(s, b)
	}
	parts := splitTop(s, "=")
	if len(parts) == 1 {
		return nil
	}
	if strings.Contains(s, "!=") {
		return unreadable(s)
	}
	for _, p := range parts {
		if p == "" {
			return unreadable(s)
		}
	}
	if len(parts) > 2 {
		return parseChain(s, parts, b, depth)
	}
	if m := tupleNamesRe.FindStringSubmatch(parts[0]); m != nil {
		if v := parseValue(parts[1], b, depth+1); v.kind == vSeq && v.open == '(' && v.close == ')' {
			if names := strings.Split(m[1], ","); len(names) == len(v.items) && distinct(names) {
				named := *v
				named.text, named.names = s, names
				return &named
			}
		}
	}
	if v := namedRatio(s, parts[0], parts[1], b, depth); v != nil {
		return v
	}
	lhs, err := parseExpr(parts[0], b)
	if varNameRe.MatchString(parts[0]) {
		v := parseValue(parts[1], b, depth+1)
		if v.kind == vScalar && err == nil {
			v.text, v.name, v.lhs, v.rhs = s, parts[0], lhs, v.x
		}
		return v
	}
	rhs, err2 := parseExpr(parts[1], b)
	if err != nil || err2 != nil {
		return unreadable(s)
	}
	if isQuantity(lhs, rhs, b) {
		return namedQuantity(s, parts[0], parts[1], lhs, rhs, b, depth)
	}
	if isQuantity(rhs, lhs, b) {
		return namedQuantity(s, parts[1], parts[0], rhs, lhs, b, depth)
	}
	return &value{kind: vEquation, text: s, lhs: lhs, rhs: rhs}
}

// segmentRe matches a name of letters, optionally subscripted: AB, S_{1}.
var segmentRe = regexp.MustCompile(`^[A-Za-z]+(?:_(?:\{[^{}]*\}|[A-Za-z0-9]))?$`)

// namedRatio reads a ratio of names equal to a ratio, A:B = 3:5, as the
// ratio on the right, named by the one on the left; or returns nil.
func namedRatio(s, left, right string, b *budget, depth int) *value {
	names := strings.Split(left, ":")
	if len(names) < 2 || strings.Count(right, ":") != len(names)-1 {
		return nil
	}
	for _, n := range names {
		if !varNameRe.MatchString(n) && !segmentRe.MatchString(n) {
			return nil
		}
	}
	v := parseValue(right, b, depth+1)
	named := *v
	named.name = left
	return &named
}

// parseMembership reads v \in S as the value of S, named v when S is an
// interval or a union; or returns nil. It runs before S is split at its
// unions, so that the name covers all of them.
func parseMembership(s string, b *budget, depth int) *value {
	if !strings.Contains(s, `\in`) || len(topIndices(s, ",")) > 0 {
		return nil // a list of memberships is split first
	}
	i := indexIn(s)
	if i <= 0 || !varNameRe.MatchString(s[:i]) {
		return nil
	}
	v := parseValue(s[i+len(`\in`):], b, depth+1)
	if v.kind == vSeq || v.kind == vUnion {
		named := *v // the text names it too: x \in (0,1) is not y \in (0,1)
		named.text, named.name = s, s[:i]
		return &named
	}
	return v
}

// parseChain reads q = c1 = … = cn, with the constants all equal, as cn
// named q; other chains of equations are text.
func parseChain(s string, parts []string, b *budget, depth int) *value {
	q, err := parseExpr(parts[0], b)
	if err != nil || !hasVar(q) {
		return unreadable(s)
	}
	var last *expr
	for _, p := range parts[1:] {
		c, err := parseExpr(p, b)
		if err != nil || hasVar(c) || last != nil && !sameExpr(last, c, b) {
			return unreadable(s)
		}
		last = c
	}
	if !isQuantity(q, last, b) && !varNameRe.MatchString(parts[0]) {
		return unreadable(s)
	}
	return namedQuantity(s, parts[0], parts[len(parts)-1], q, last, b, depth)
}

// unreadable is the text s, which looks like math but could not be read.
func unreadable(s string) *value { return &value{kind: vText, text: s, failed: true} }

// namedQuantity is the value c named q.
func namedQuantity(s, name, src string, q, c *expr, b *budget, depth int) *value {
	v := parseValue(src, b, depth+1)
	if v.kind != vScalar {
		return &value{kind: vEquation, text: s, lhs: q, rhs: c}
	}
	named := *v
	named.text, named.name, named.lhs, named.rhs = s, name, q, c
	named.quantity = q.op != opVar && !varNameRe.MatchString(name)
	return &named
}

// isQuantity reports whether q = c names a quantity: q is one variable
// (\angle A, \overline{AB}), or an expression of two or more variables
// without a constant term, and c is a constant other than zero. An
// equation such as x + y + z = 0 is a plane, not the value 0; one such as
// 2x = 4 is to be solved for x, not the value 4.
func isQuantity(q, c *expr, b *budget) bool {
	if hasVar(c) || q.op != opVar && (countVars(q, map[string]bool{}) < 2 || !everyTermHasVar(q)) {
		return false
	}
	if r, ok := exact(c, b); ok && r.Sign() == 0 {
		return false
	}
	return true
}

// countVars returns the number of distinct variables of e, counting up
// to two: seen holds those met so far.
func countVars(e *expr, seen map[string]bool) int {
	if e.op == opVar {
		seen[e.name] = true
	}
	for _, a := range e.args {
		if len(seen) >= 2 {
			break
		}
		countVars(a, seen)
	}
	return len(seen)
}

// everyTermHasVar reports whether every term of the sum e has a variable.
func everyTermHasVar(e *expr) bool {
	switch e.op {
	case opAdd, opSub:
		return everyTermHasVar(e.args[0]) && everyTermHasVar(e.args[1])
	case opNeg:
		return everyTermHasVar(e.args[0])
	}
	return hasVar(e)
}

func distinct(names []string) bool {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return false
		}
		seen[n] = true
	}
	return true
}

// indexIn returns the index of a top-level \in command (not \infty or
// \int), or -1.
func indexIn(s string) int {
	for _, i := range topIndices(s, `\in`) {
		if j := i + len(`\in`); j == len(s) || !isLetter(s[j]) {
			return i
		}
	}
	return -1
}

// baseRe matches a numeral with a base subscript: 204_5, 4210_{5},
// (101)_2, 101_{(2)}, 1A_{16}.
var baseRe = regexp.MustCompile(`^(?:([0-9A-Z]+)|\(([0-9A-Z]+)\))_(?:\{\(?([0-9]{1,2})\)?\}|([0-9]))$`)

// parseNumeral reads a numeral with a base subscript, or returns nil. Its
// digits must be digits of its base, from 2 to 36 (letters from 10 up).
// Such a numeral equals the same digits in the same base, with or without
// the subscript (the question names the base, so 204 answers 204_5), and
// nothing else: 101_2 is neither 5 nor 101_3. A numeral in base 10 is also
// its value (5_{10} is 5.0).
func parseNumeral(s string) *value {
	if !strings.Contains(s, "_") {
		return nil
	}
	m := baseRe.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	digits, base := m[1]+m[2], 0
	for _, d := range m[3] + m[4] {
		base = 10*base + int(d-'0')
	}
	if base < 2 || base > 36 {
		return nil
	}
	for i := 0; i < len(digits); i++ {
		if digitValue(digits[i]) >= base {
			return nil
		}
	}
	n, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return nil
	}
	x := &expr{op: opNum, num: new(big.Rat).SetInt(n)}
	return &value{kind: vScalar, text: s, x: x, base: base, numeral: numeralDigits(digits)}
}

// digitValue is the value of a digit 0-9 or A-Z.
func digitValue(c byte) int {
	if isDigit(c) {
		return int(c - '0')
	}
	return int(c-'A') + 10
}

// numeralDigits is the digits of a numeral without leading zeros: 0 for
// zero.
func numeralDigits(digits string) string {
	if d := strings.TrimLeft(digits, "0"); d != "" {
		return d
	}
	return "0"
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
