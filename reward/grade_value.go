package reward

import (
	"math/big"
	"regexp"
	"sort"
	"strings"
)

// The structure of an answer: a scalar, an ordered tuple or interval, an
// unordered set of solutions, a union of intervals, a matrix, an equation,
// or plain text. parseValue reads a normalised answer into a value; same
// compares two values.

type valueKind uint8

const (
	vText     valueKind = iota
	vScalar             // x, percent; lhs and rhs too when written v = x
	vSeq                // items between open and close: a tuple or an interval
	vSet                // items in any order: a list of solutions, \{…\}, a ± pair
	vUnion              // items in any order, joined by ∪
	vMatrix             // rows of cells
	vEquation           // lhs = rhs
)

type value struct {
	kind        valueKind
	text        string // the normalised answer this value was read from
	x           *expr
	percent     bool
	pm          bool   // a set read from a ± b, spliced into an enclosing list
	name        string // v of v = x
	lhs, rhs    *expr
	open, close byte
	items       []*value
	rows        [][]*value
}

// Limits of the structure of one answer.
const (
	maxValueDepth = 12  // nested tuples, sets and matrices
	maxItems      = 256 // items of a set matched pairwise; larger sets compare as sorted text
	maxPM         = 3   // ± signs expanded in one scalar
)

var (
	thousandsRe = regexp.MustCompile(`^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?$`)
	varNameRe   = regexp.MustCompile(`^(?:(?:[A-Za-z]|\\[A-Za-z]+)(?:_(?:\{[^{}]*\}|[A-Za-z0-9]))?'*(?:\([A-Za-z,]*\))?|\((?:[A-Za-z],)+[A-Za-z]\))$`)
)

// parseValue reads the normalised answer s. Anything it cannot read is
// text, compared as a string.
func parseValue(s string, b *budget, depth int) *value {
	text := &value{kind: vText, text: s}
	if depth > maxValueDepth || s == "" || !b.spend(1+len(s)/16) {
		return text
	}
	if v := parseMatrix(s, b, depth); v != nil {
		return v
	}
	if parts := splitTop(s, "∪"); len(parts) > 1 {
		return &value{kind: vUnion, text: s, items: parseAll(parts, b, depth)}
	}
	if thousandsRe.MatchString(s) {
		return parseScalar(s, strings.ReplaceAll(s, ",", ""), b)
	}
	if parts := splitTop(s, ","); len(parts) > 1 {
		return &value{kind: vSet, text: s, items: flattenPM(parseAll(parts, b, depth))}
	}
	if inner, ok := enclosed(s, `\{`, `\}`); ok {
		return &value{kind: vSet, text: s, items: flattenPM(parseAll(splitTop(inner, ","), b, depth))}
	}
	if v := parseRelation(s, b, depth); v != nil {
		return v
	}
	if (s[0] == '(' || s[0] == '[') && (s[len(s)-1] == ')' || s[len(s)-1] == ']') {
		if inner, ok := enclosed(s, s[:1], s[len(s)-1:]); ok {
			parts := splitTop(inner, ",")
			if len(parts) == 1 {
				return parseValue(inner, b, depth+1)
			}
			return &value{kind: vSeq, text: s, open: s[0], close: s[len(s)-1], items: parseAll(parts, b, depth)}
		}
	}
	if strings.Contains(s, "±") {
		return expandPM(s, b, depth)
	}
	if isWord(s) {
		return text
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v := parseScalar(s, p, b)
		v.percent = v.kind == vScalar
		return v
	}
	return parseScalar(s, s, b)
}

func parseAll(parts []string, b *budget, depth int) []*value {
	vs := make([]*value, len(parts))
	for i, p := range parts {
		vs[i] = parseValue(p, b, depth+1)
	}
	return vs
}

// parseScalar reads src as an expression; the value keeps text.
func parseScalar(text, src string, b *budget) *value {
	x, err := parseExpr(src, b)
	if err != nil {
		return &value{kind: vText, text: text}
	}
	return &value{kind: vScalar, text: text, x: x}
}

// isWord reports whether s is three or more letters: a word, not a
// product of variables.
func isWord(s string) bool {
	if len(s) < 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}

// parseRelation reads v = x (a named value: the value of x, remembering
// the equation), v \in S (the value of S), or any other equation a = b.
// Inequalities stay text. It returns nil when s holds no relation.
func parseRelation(s string, b *budget, depth int) *value {
	if i := indexIn(s); i > 0 && varNameRe.MatchString(s[:i]) {
		return parseValue(s[i+len(`\in`):], b, depth+1)
	}
	parts := splitTop(s, "=")
	if len(parts) == 1 {
		return nil
	}
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" || strings.ContainsAny(s, "<>") || strings.Contains(s, "!=") {
		return &value{kind: vText, text: s}
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
		return &value{kind: vText, text: s}
	}
	return &value{kind: vEquation, text: s, lhs: lhs, rhs: rhs}
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

// expandPM reads a ± b as the set {a + b, a - b}, for up to maxPM signs.
func expandPM(s string, b *budget, depth int) *value {
	if strings.Count(s, "±") > maxPM {
		return &value{kind: vText, text: s}
	}
	i := strings.Index(s, "±")
	rest := s[i+len("±"):]
	items := flattenPM([]*value{
		parseValue(s[:i]+"+"+rest, b, depth+1),
		parseValue(s[:i]+"-"+rest, b, depth+1),
	})
	return &value{kind: vSet, text: s, items: items, pm: true}
}

// flattenPM splices the items of ± sets into the list they appear in.
func flattenPM(vs []*value) []*value {
	var out []*value
	for _, v := range vs {
		if v.kind == vSet && v.pm {
			out = append(out, v.items...)
		} else {
			out = append(out, v)
		}
	}
	return out
}

var matrixEnvs = []string{"pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "smallmatrix", "matrix", "array"}

// parseMatrix reads \begin{env}…\end{env} for a matrix environment, rows
// split by \\ and cells by &, or returns nil.
func parseMatrix(s string, b *budget, depth int) *value {
	if !strings.HasPrefix(s, `\begin{`) {
		return nil
	}
	for _, env := range matrixEnvs {
		body, ok := strings.CutPrefix(s, `\begin{`+env+`}`)
		if !ok {
			continue
		}
		if body, ok = strings.CutSuffix(body, `\end{`+env+`}`); !ok {
			return nil
		}
		if env == "array" && strings.HasPrefix(body, "{") { // column spec
			if end := closingBrace(body, 0); end > 0 {
				body = body[end+1:]
			}
		}
		v := &value{kind: vMatrix, text: s}
		for _, row := range splitTop(strings.TrimSuffix(body, `\\`), `\\`) {
			v.rows = append(v.rows, parseAll(splitTop(row, "&"), b, depth))
		}
		return v
	}
	return nil
}

// splitTop splits s at each sep outside brackets and braces.
func splitTop(s, sep string) []string {
	idx := topIndices(s, sep)
	parts := make([]string, 0, len(idx)+1)
	start := 0
	for _, i := range idx {
		parts = append(parts, s[start:i])
		start = i + len(sep)
	}
	return append(parts, s[start:])
}

// topIndices returns the indices of sep in s at bracket depth 0. Round and
// square brackets count alike, so that the half-open interval (1,2] nests.
func topIndices(s, sep string) []int {
	var idx []int
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '\\':
			if strings.HasPrefix(s[i:], sep) && depth == 0 {
				idx = append(idx, i)
				i += len(sep) - 1
				continue
			}
			if i+1 < len(s) && s[i+1] == '\\' { // a row break, not an escape
				i++
			}
			continue
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			idx = append(idx, i)
			i += len(sep) - 1
		}
	}
	return idx
}

// enclosed reports whether s is open…close with the opening bracket
// closed only at the very end, and returns what is between.
func enclosed(s, open, close string) (string, bool) {
	if len(s) < len(open)+len(close) || !strings.HasPrefix(s, open) || !strings.HasSuffix(s, close) {
		return "", false
	}
	depth := 0
	for i := 0; i < len(s)-len(close); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth <= 0 {
				return "", false
			}
		}
	}
	return s[len(open) : len(s)-len(close)], depth == 1
}

// same reports whether two values are the same answer. The rules are
// symmetric; kinds are ordered so that each pair of kinds has one case.
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
	switch {
	case a.kind == vText:
		return b.kind == vText && strings.EqualFold(a.text, b.text)
	case a.kind == vScalar && b.kind == vScalar:
		return sameScalar(a, b, bud)
	case a.kind == vScalar && b.kind == vSet:
		return len(b.items) == 1 && same(a, b.items[0], bud)
	case a.kind == vScalar && b.kind == vEquation:
		return a.lhs != nil && sameEquation(a.lhs, a.rhs, b.lhs, b.rhs, bud)
	case a.kind == vSeq && b.kind == vSeq:
		return a.open == b.open && a.close == b.close && sameList(a.items, b.items, bud)
	case a.kind == vSeq && b.kind == vMatrix:
		return a.open == '(' && a.close == ')' && sameList(a.items, vectorCells(b), bud)
	case a.kind == b.kind && (a.kind == vSet || a.kind == vUnion):
		return sameMultiset(a.items, b.items, bud)
	case a.kind == vMatrix && b.kind == vMatrix:
		return sameMatrix(a.rows, b.rows, bud)
	case a.kind == vEquation && b.kind == vEquation:
		return sameEquation(a.lhs, a.rhs, b.lhs, b.rhs, bud)
	}
	return false
}

// sameScalar compares two scalars. Named values (x = 5) of different
// names differ. A percentage equals another percentage of the same value;
// against a plain number, p% equals both p and p/100.
func sameScalar(a, b *value, bud *budget) bool {
	if a.name != "" && b.name != "" && a.name != b.name {
		return false
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
