package mathgrade

import (
	"regexp"
	"strings"
)

// The structure of an answer: a scalar, an ordered tuple or interval, an
// unordered set of solutions, a union of intervals, a matrix, an equation,
// an inequality, or plain text. parseValue reads a normalised answer into
// a value; same compares two values.

type valueKind uint8

const (
	vText     valueKind = iota
	vScalar             // x, percent; lhs and rhs too when written v = x
	vSeq                // items between open and close: a tuple or an interval
	vSet                // items in any order: a list of solutions, \{…\}, a ± pair
	vUnion              // items in any order, joined by ∪
	vMatrix             // rows of cells
	vEquation           // lhs = rhs
	vIneq               // a chain of < and ≤ (> and ≥ reversed)
)

type value struct {
	kind        valueKind
	failed      bool // text because it looked like math but could not be read
	percent     bool
	pm          bool // a set read from a ± b, spliced into an enclosing list
	quantity    bool // named by an expression of several variables: q = c of isQuantity (m+n = 104)
	assign      bool // a set of named values of distinct names (x = 1, y = 2): an assignment
	grouped     bool // a set written {…} without backslashes: a list, in order against a tuple
	open, close byte
	text        string // the normalised answer this value was read from
	x           *expr
	name        string // v of v = x (a variable, a function or an expression), or of v \in S
	lhs, rhs    *expr
	base        int      // the base of a numeral with a subscript (101_2), else 0
	numeral     string   // the digits, without leading zeros, of an unsigned integer or based numeral
	names       []string // of a tuple of names equal to a tuple, (x,y) = (1,2): each item's name
	items       []*value
	rows        [][]*value
	ineq        *inequality
}

// inequality is the chain of an inequality value.
type inequality struct {
	parts    []*expr // smallest first
	strict   []bool  // strict[i]: parts[i] < parts[i+1], not ≤
	interval *value  // of an inequality of one variable: x > 3 is (3, ∞)
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
	if depth > maxValueDepth || s == "" || !b.spend(1+len(s)/16) {
		return &value{kind: vText, text: s}
	}
	if v := parseMatrix(s, b, depth); v != nil {
		return v
	}
	if v := parseMembership(s, b, depth); v != nil {
		return v
	}
	if parts := splitTop(s, "∪"); len(parts) > 1 {
		return &value{kind: vUnion, text: s, items: parseAll(parts, b, depth)}
	}
	if thousandsRe.MatchString(s) {
		return parseScalar(s, strings.ReplaceAll(s, ",", ""), b)
	}
	if list, ok := listOfAlternatives(s); ok {
		v := parseValue(list, b, depth+1)
		v.text = s
		return v
	}
	if parts := joinThousands(splitTop(s, ",")); len(parts) > 1 {
		return newSet(s, flattenPM(parseAll(parts, b, depth)))
	} else if parts[0] != s {
		return parseValue(parts[0], b, depth+1)
	}
	if inner, ok := enclosed(s, `\{`, `\}`); ok {
		return newSet(s, flattenPM(parseAll(splitTop(inner, ","), b, depth)))
	}
	if inner, ok := enclosed(s, "{", "}"); ok && len(splitTop(inner, ",")) > 1 {
		return groupedList(s, parseValue(inner, b, depth+1))
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
		return &value{kind: vText, text: s}
	}
	if v := parseNumeral(s); v != nil {
		return v
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v := parseScalar(s, p, b)
		v.percent = v.kind == vScalar
		return v
	}
	return parseScalar(s, s, b)
}

// listOfAlternatives rewrites a list whose items are separated at the
// top level by semicolons, or by "or" (∨) between items that are not all
// inequalities (those make a union, see parseInequalities), as a list
// separated by ", ": 12,7∨5 is 12,7, 5. ok is false when s is no such
// list.
func listOfAlternatives(s string) (string, bool) {
	if !strings.Contains(s, ";") && !strings.Contains(s, "∨") {
		return "", false
	}
	parts := splitTop(s, ";")
	var items []string
	for _, p := range parts {
		alts := splitTop(p, "∨")
		if len(alts) > 1 && allContainAny(alts, "<>") {
			alts = []string{p}
		}
		items = append(items, alts...)
	}
	if len(items) < 2 {
		return "", false
	}
	for _, it := range items {
		if it == "" {
			return "", false
		}
	}
	return strings.Join(items, ", "), true
}

// groupedList is the value of {…}, braces without backslashes around a
// list: LaTeX grouping, so the list itself, whose items are in the order
// written against a tuple ({2,5} is (2,5), not (5,2)).
func groupedList(s string, v *value) *value {
	if v.kind != vSet {
		return v
	}
	g := *v
	g.text, g.grouped = s, true
	return &g
}

// newSet is the set of items read from s. Named values of distinct names
// make an assignment (x = 1, y = 2), compared name by name; others, such
// as x = 1, x = 2, are solutions in any order.
func newSet(s string, items []*value) *value {
	v := &value{kind: vSet, text: s, items: items}
	seen := map[string]bool{}
	for _, it := range items {
		if it.kind != vScalar || it.name == "" || seen[it.name] {
			return v
		}
		seen[it.name] = true
	}
	v.assign = len(items) > 1
	return v
}

// joinThousands joins the items of a list split at commas back into a
// number where the commas separate thousands: an item that ends in one to
// three digits after something that is not a number (x=1 of x=1,000),
// followed by items of exactly three digits, the last of which may end in
// something else (000\% of 1,000\%). A list of plain numbers (1,2,100)
// is left alone, as is an item that starts with a space (1, 234).
func joinThousands(parts []string) []string {
	if len(parts) < 2 {
		return parts
	}
	out := []string{parts[0]}
	for i := 1; i < len(parts); i++ {
		j := i
		for j < len(parts) && threeDigits(parts[j]) && (j == i || len(parts[j-1]) == 3) {
			j++
		}
		prev := out[len(out)-1]
		lead := leadingGroup(prev)
		suffixed := len(parts[j-1]) > 3
		if j > i && lead > 0 && (lead < len(prev) || suffixed) {
			out[len(out)-1] = prev + strings.Join(parts[i:j], "")
			i = j - 1
			continue
		}
		out = append(out, parts[i])
	}
	return out
}

// leadingGroup returns the length of the one to three digits that end s
// after a character that is neither a digit nor a decimal point, or 0.
func leadingGroup(s string) int {
	n := 0
	for n < len(s) && isDigit(s[len(s)-1-n]) {
		n++
	}
	if n == 0 || n > 3 || n < len(s) && s[len(s)-1-n] == '.' {
		return 0
	}
	return n
}

func parseAll(parts []string, b *budget, depth int) []*value {
	vs := make([]*value, len(parts))
	for i, p := range parts {
		vs[i] = parseValue(strings.TrimSpace(p), b, depth+1)
	}
	return vs
}

// parseScalar reads src as an expression; the value keeps text. The
// digits of an unsigned integer literal are its numeral.
func parseScalar(text, src string, b *budget) *value {
	x, err := parseExpr(src, b)
	if err != nil {
		return unreadable(text)
	}
	v := &value{kind: vScalar, text: text, x: x}
	if isDigits(src) {
		v.numeral = numeralDigits(src)
	}
	return v
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
// split by \\ and cells by &, or a scalar times one (\frac{1}{5}\begin{…}),
// or returns nil.
func parseMatrix(s string, b *budget, depth int) *value {
	if !strings.HasPrefix(s, `\begin{`) {
		return parseScaledMatrix(s, b, depth)
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

// parseScaledMatrix reads c\begin{env}…\end{env}, a scalar c or a minus
// sign (and an optional *) before a matrix whose cells are scalars, as the
// matrix of the cells times c; or returns nil.
func parseScaledMatrix(s string, b *budget, depth int) *value {
	i := strings.Index(s, `\begin{`)
	if i <= 0 || !strings.HasSuffix(s, "}") {
		return nil
	}
	prefix := strings.TrimSuffix(s[:i], "*")
	src := prefix
	if src == "-" {
		src = "-1"
	}
	c, err := parseExpr(src, b)
	if err != nil {
		return nil
	}
	m := parseMatrix(s[i:], b, depth)
	if m == nil {
		return nil
	}
	scaled := &value{kind: vMatrix, text: s}
	for _, row := range m.rows {
		cells := make([]*value, len(row))
		for j, cell := range row {
			if cell.kind != vScalar || cell.base != 0 {
				return nil
			}
			cells[j] = &value{kind: vScalar, text: prefix + "*(" + cell.text + ")", x: &expr{op: opMul, args: []*expr{c, cell.x}}}
		}
		scaled.rows = append(scaled.rows, cells)
	}
	return scaled
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
