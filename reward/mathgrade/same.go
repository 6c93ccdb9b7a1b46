package mathgrade

import (
	"math/big"
	"sort"
	"strings"
)

// Comparison of parsed answers (see parseValue).

// same reports whether two values are the same answer. The rules are
// symmetric; kinds are ordered so that each pair of kinds has one case. A
// set of one item (not an assignment) is that item against anything but a
// set.
func same(a, b *value, bud *budget) bool {
	if a.text == b.text {
		return true
	}
	if !bud.spend(1) {
		return false
	}
	if a.kind > b.kind {
		a, b = b, a
	}
	if x := lone(b); x != nil && a.kind != vSet {
		return same(a, x, bud)
	}
	if x := lone(a); x != nil && b.kind != vSet {
		return same(x, b, bud)
	}
	switch {
	case a.kind == vText:
		return b.kind == vText && strings.EqualFold(a.text, b.text)
	case a.kind == vScalar && b.kind == vScalar:
		return sameScalar(a, b, bud)
	case a.kind == vScalar && b.kind == vEquation:
		return a.lhs != nil && sameEquation(a.lhs, a.rhs, b.lhs, b.rhs, bud)
	case a.kind == vSeq && b.kind == vSeq:
		return sameSeq(a, b, bud)
	case a.kind == vSeq && b.kind == vSet:
		return b.assign && sameAssignedSeq(b, a, bud) || b.grouped && sameGroupedSeq(b, a, bud)
	case a.kind == vSeq && b.kind == vMatrix:
		return a.open == '(' && a.close == ')' && sameList(a.items, vectorCells(b), bud)
	case a.kind == vSeq && b.kind == vIneq:
		return b.ineq.interval != nil && sameNames(a, b) && same(a, b.ineq.interval, bud)
	case a.kind == vSet && b.kind == vSet:
		if a.assign || b.assign {
			return sameAssignment(a, b, bud)
		}
		return sameMultiset(a.items, b.items, bud)
	case a.kind == vUnion && b.kind == vIneq:
		return b.ineq.interval != nil && sameNames(a, b) && same(a, b.ineq.interval, bud)
	case a.kind == vUnion && b.kind == vUnion:
		return sameNames(a, b) && sameMultiset(a.items, b.items, bud)
	case a.kind == vMatrix && b.kind == vMatrix:
		return sameMatrix(a.rows, b.rows, bud)
	case a.kind == vEquation && b.kind == vEquation:
		return sameEquation(a.lhs, a.rhs, b.lhs, b.rhs, bud)
	case a.kind == vIneq && b.kind == vIneq:
		return sameIneq(a, b, bud)
	}
	return false
}

// lone returns the item of a set of one item, or nil.
func lone(v *value) *value {
	if v.kind == vSet && len(v.items) == 1 {
		return v.items[0]
	}
	return nil
}

// sameNames reports whether two values are not named differently.
func sameNames(a, b *value) bool { return a.name == "" || b.name == "" || a.name == b.name }

// sameScalar compares two scalars. A numeral with a base equals only the
// same digits in the same base or without one, but one in base 10 equals
// any plain number of its value. Named values of different
// names (x = 5, y = 5) are compared as equations, so m+n = 104 equals
// n+m = 104. A percentage equals another percentage of the same value;
// against a plain number, p% equals both p and p/100.
func sameScalar(a, b *value, bud *budget) bool {
	if a.base > b.base {
		a, b = b, a
	}
	switch {
	case a.base == 0 && b.base == 10:
		return sameExpr(a.x, b.x, bud)
	case b.base != 0:
		return a.numeral != "" && a.numeral == b.numeral && (a.base == b.base || a.base == 0)
	}
	if !sameNames(a, b) {
		return a.lhs != nil && b.lhs != nil && sameEquation(a.lhs, a.rhs, b.lhs, b.rhs, bud)
	}
	if a.percent == b.percent {
		return sameExpr(a.x, b.x, bud)
	}
	if b.percent {
		a, b = b, a
	}
	hundredth := &expr{op: opDiv, args: []*expr{a.x, {op: opNum, num: big.NewRat(100, 1)}}}
	return sameExpr(a.x, b.x, bud) || sameExpr(hundredth, b.x, bud)
}

// sameSeq compares tuples and intervals: the same brackets, and the same
// items in the same order. Items named by a tuple of names
// ((x,y) = (1,2)) are matched by name when both tuples are named; tuples
// of different names differ.
func sameSeq(a, b *value, bud *budget) bool {
	if a.open != b.open || a.close != b.close || len(a.items) != len(b.items) {
		return false
	}
	if !sameNames(a, b) || len(a.names) > 0 && len(b.names) > 0 && !sameNameSet(a.names, b.names) {
		return false
	}
	if bud.lax {
		return sameMultiset(a.items, b.items, bud)
	}
	if len(a.names) == 0 || len(b.names) == 0 {
		return sameList(a.items, b.items, bud)
	}
	for i, n := range a.names {
		if !same(a.items[i], b.items[indexOf(b.names, n)], bud) {
			return false
		}
	}
	return true
}

// sameNameSet reports whether two lists of distinct names hold the same
// names.
func sameNameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, n := range a {
		if indexOf(b, n) < 0 {
			return false
		}
	}
	return true
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// sameAssignment compares sets of which at least one is an assignment
// (x = 1, y = 2). Two assignments match name by name, in any order;
// against a list, an assignment compares in the order it is written, so
// x = 1, y = 2 is 1, 2 and not 2, 1.
func sameAssignment(a, b *value, bud *budget) bool {
	if len(a.items) != len(b.items) {
		return false
	}
	if bud.lax {
		return sameMultiset(a.items, b.items, bud)
	}
	if !a.assign || !b.assign {
		return sameList(a.items, b.items, bud)
	}
	for _, x := range a.items {
		k := -1
		for j, y := range b.items {
			if y.name == x.name {
				k = j
				break
			}
		}
		if k < 0 || !same(x, b.items[k], bud) {
			return false
		}
	}
	return true
}

// sameAssignedSeq compares an assignment with a tuple: by name when the
// tuple is named ((x,y) = (1,2)), else in the order written.
func sameAssignedSeq(set, seq *value, bud *budget) bool {
	if len(set.items) != len(seq.items) || seq.open != '(' || seq.close != ')' {
		return false
	}
	if bud.lax {
		return sameMultiset(set.items, seq.items, bud)
	}
	if len(seq.names) == 0 {
		return sameList(set.items, seq.items, bud)
	}
	for _, x := range set.items {
		j := indexOf(seq.names, x.name)
		if j < 0 || !same(x, seq.items[j], bud) {
			return false
		}
	}
	return true
}

// sameGroupedSeq compares a list written in braces ({2,5}) with a tuple,
// item by item in order.
func sameGroupedSeq(set, seq *value, bud *budget) bool {
	if len(set.items) != len(seq.items) || seq.open != '(' || seq.close != ')' || set.assign {
		return false
	}
	if bud.lax {
		return sameMultiset(set.items, seq.items, bud)
	}
	return sameList(set.items, seq.items, bud)
}

func sameList(xs, ys []*value, bud *budget) bool {
	if len(xs) != len(ys) {
		return false
	}
	for i := range xs {
		if !same(xs[i], ys[i], bud) {
			return false
		}
	}
	return true
}

// vectorCells returns the cells of a one-row or one-column matrix, or nil.
func vectorCells(m *value) []*value {
	var cells []*value
	for _, row := range m.rows {
		if len(row) != 1 && len(m.rows) != 1 {
			return nil
		}
		cells = append(cells, row...)
	}
	return cells
}

func sameMatrix(xs, ys [][]*value, bud *budget) bool {
	if len(xs) != len(ys) {
		return false
	}
	for i := range xs {
		if !sameList(xs[i], ys[i], bud) {
			return false
		}
	}
	return true
}

// sameMultiset reports whether xs and ys can be paired off into equal
// items (a perfect bipartite matching, found by augmenting paths).
func sameMultiset(xs, ys []*value, bud *budget) bool {
	n := len(xs)
	if n != len(ys) {
		return false
	}
	if sortedTexts(xs) == sortedTexts(ys) {
		return true
	}
	if n > maxItems {
		return false
	}
	known := make([]int8, n*n) // 0 unknown, 1 equal, 2 not
	eq := func(i, j int) bool {
		if known[i*n+j] == 0 {
			known[i*n+j] = 2
			if same(xs[i], ys[j], bud) {
				known[i*n+j] = 1
			}
		}
		return known[i*n+j] == 1
	}
	owner := make([]int, n) // owner[j]: the x paired with ys[j], or -1
	for j := range owner {
		owner[j] = -1
	}
	var augment func(i int, seen []bool) bool
	augment = func(i int, seen []bool) bool {
		for j := range n {
			if seen[j] || bud.left < 0 || !eq(i, j) {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || augment(owner[j], seen) {
				owner[j] = i
				return true
			}
		}
		return false
	}
	for i := range n {
		if !augment(i, make([]bool, n)) {
			return false
		}
	}
	return bud.left >= 0
}

func sortedTexts(vs []*value) string {
	ts := make([]string, len(vs))
	for i, v := range vs {
		ts[i] = v.text
	}
	sort.Strings(ts)
	return strings.Join(ts, "\x00")
}
