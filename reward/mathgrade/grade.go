package mathgrade

// Reasons of a Verdict. An equal verdict has ReasonSame or
// ReasonEquivalent; every other reason comes with a rejection.
const (
	// ReasonSame: the answers are spelled the same once normalised.
	ReasonSame = "same"
	// ReasonEquivalent: the answers are spelled differently and compare
	// equal by the rules of Equal.
	ReasonEquivalent = "equivalent"
	// ReasonMismatch: both answers were read and compared; they differ.
	ReasonMismatch = "mismatch"
	// ReasonOrder: ordered tuples (or named tuples) hold the same items in
	// another order, as (1,2) and (2,1); they would match as sets.
	ReasonOrder = "ordered-tuple"
	// ReasonShape: the answers have different structures that no rule
	// compares (a tuple and a list, tuples of different lengths, an
	// interval with other brackets), whatever their items.
	ReasonShape = "shape"
	// ReasonName: named values or intervals of different names, as x = 5
	// and y = 5.
	ReasonName = "name"
	// ReasonParse: an answer looks like math but could not be read (an
	// unbalanced group, an unknown command), so only its spelling was
	// compared.
	ReasonParse = "parse"
	// ReasonBudget: the comparison ran out of its work budget before it
	// could decide; the answers may be equal, but the grader says no.
	ReasonBudget = "budget"
	// ReasonTooLong: an answer is longer than MaxAnswerLen bytes.
	ReasonTooLong = "too-long"
	// ReasonEmpty: an answer is empty once normalised.
	ReasonEmpty = "empty"
	// ReasonUnnamed: the gold answer names a quantity by an equation of
	// several variables (3x - y = 2) and the prediction is its bare value
	// (2): the value alone does not state the equation. The other way
	// round, a prediction that names the asked quantity (m+n = 104 for
	// the gold 104) is accepted; this is the one rule of Grade that is not
	// symmetric.
	ReasonUnnamed = "unnamed"
	// ReasonNoAnswer: the response holds no answer for Extract to find.
	// Grade never gives it; callers that extract the answer first do.
	ReasonNoAnswer = "no-answer"
)

// A Verdict is the outcome of grading an answer against a gold answer:
// whether they are equal, and why (one of the Reason constants).
type Verdict struct {
	Equal  bool
	Reason string
}

// Grade compares pred with gold under math equivalence, by the rules of
// Equal, and says why it decided as it did. A false accept is worse than a
// false reject: a comparison that cannot be decided within the work budget
// is a rejection with ReasonBudget.
//
// The direction matters in one rule only: a prediction may name the
// quantity the gold answer gives (pred m+n = 104, gold 104: equal), but a
// gold answer that is such an equation is not matched by a bare value
// (pred 2, gold 3x - y = 2: ReasonUnnamed). Every other verdict is the
// same with the arguments swapped. Grade is deterministic, safe for
// concurrent use and never panics.
func Grade(pred, gold string) Verdict {
	if len(pred) > MaxAnswerLen || len(gold) > MaxAnswerLen {
		return Verdict{Reason: ReasonTooLong}
	}
	p, g := normalize(pred), normalize(gold)
	if p == "" || g == "" {
		return Verdict{Reason: ReasonEmpty}
	}
	if p == g {
		return Verdict{Equal: true, Reason: ReasonSame}
	}
	swapped := p > g
	if swapped { // the same work in either argument order: symmetric by construction
		p, g = g, p
	}
	b := &budget{left: stepBudget}
	pv, gv := parseValue(p, b, 0), parseValue(g, b, 0)
	eq := same(pv, gv, b)
	if swapped {
		pv, gv = gv, pv
	}
	switch {
	case b.left < 0:
		return Verdict{Reason: ReasonBudget}
	case eq && unnamedPrediction(pv, gv):
		return Verdict{Reason: ReasonUnnamed}
	case eq:
		return Verdict{Equal: true, Reason: ReasonEquivalent}
	}
	return Verdict{Reason: rejection(pv, gv)}
}

// unnamedPrediction reports whether gold is a quantity named by an
// equation of several variables (see isQuantity) and pred a value that
// names nothing: pred cannot state the equation gold is.
func unnamedPrediction(pred, gold *value) bool {
	if x := lone(gold); x != nil {
		gold = x
	}
	if x := lone(pred); x != nil {
		pred = x
	}
	return gold.quantity && pred.kind == vScalar && pred.name == "" && len(pred.names) == 0
}

// explainBudget is the work spent at most to tell an ordered-tuple
// rejection from a plain mismatch.
const explainBudget = stepBudget / 4

// rejection says why two answers that same found different differ.
func rejection(a, b *value) string {
	if a.failed || b.failed {
		return ReasonParse
	}
	if hasSeq(a) || hasSeq(b) {
		lax := &budget{left: explainBudget, lax: true}
		if same(a, b, lax) && lax.left >= 0 {
			return ReasonOrder
		}
	}
	if x := lone(a); x != nil && b.kind != vSet {
		a = x
	}
	if x := lone(b); x != nil && a.kind != vSet {
		b = x
	}
	if a.kind > b.kind {
		a, b = b, a
	}
	switch {
	case !comparable(a, b):
		return ReasonShape
	case a.kind == vSeq && b.kind == vSeq && (a.open != b.open || a.close != b.close || len(a.items) != len(b.items)):
		return ReasonShape
	case !sameNames(a, b) || len(a.names) > 0 && len(b.names) > 0 && !sameNameSet(a.names, b.names):
		return ReasonName
	}
	return ReasonMismatch
}

// comparable reports whether a rule of same compares values of the kinds
// of a and b, with a.kind ≤ b.kind.
func comparable(a, b *value) bool {
	switch [2]valueKind{a.kind, b.kind} {
	case [2]valueKind{vText, vText}, [2]valueKind{vScalar, vScalar}, [2]valueKind{vSeq, vSeq},
		[2]valueKind{vSeq, vMatrix}, [2]valueKind{vSet, vSet}, [2]valueKind{vUnion, vUnion},
		[2]valueKind{vMatrix, vMatrix}, [2]valueKind{vEquation, vEquation}, [2]valueKind{vIneq, vIneq}:
		return true
	case [2]valueKind{vScalar, vEquation}:
		return a.lhs != nil
	case [2]valueKind{vSeq, vSet}:
		return b.assign || b.grouped
	case [2]valueKind{vSeq, vIneq}, [2]valueKind{vUnion, vIneq}:
		return b.ineq.interval != nil
	}
	return false
}

// hasSeq reports whether v holds a tuple or an interval.
func hasSeq(v *value) bool {
	if v.kind == vSeq {
		return true
	}
	for _, it := range v.items {
		if hasSeq(it) {
			return true
		}
	}
	for _, row := range v.rows {
		for _, c := range row {
			if hasSeq(c) {
				return true
			}
		}
	}
	return false
}

// Equal reports whether pred and gold are the same answer under math
// equivalence: Grade(pred, gold).Equal. Both are normalised first (see
// normalize): math delimiters, dollar signs, \boxed{}, \fbox{}, \text{}
// and similar wrappers, LaTeX spacing, \left and \right, units (a
// trailing \text{...} after a number, or a known unit word), thousands
// separators written {,} or ,\! and trailing full stops go; \dfrac and
// \tfrac are \frac, \dbinom and \tbinom are \binom, every degree sign is
// °; whitespace goes, except a space after a comma that would otherwise
// make a thousands separator (1, 234 is a list). Equal normalised strings
// are equal. Otherwise both are read as structured
// answers and compared by these rules:
//
//   - numbers are exact rationals: integers, decimals, thousands separators
//     (1,234, also within x = 1,000), fractions a/b, \frac{a}{b}, \frac12,
//     mixed numbers (1\frac{1}{2}), scientific notation (1.5e3, 2E-4,
//     1.5 \times 10^{3}); 0.333 is not 1/3;
//   - a numeral with a base subscript (101_2, 4210_{5}) equals the same
//     digits in the same base, or without a base (the question names it),
//     and nothing else: 101_2 is neither 5 nor 101_3;
//   - a percentage p% (or "p percent") equals p% and, against a plain
//     number, both p and p/100 (so 50\% equals 50 and 0.5, while 50 and
//     0.5 differ);
//   - other expressions (roots, \pi, e, i, trigonometric and logarithmic
//     functions, factorials, binomials in every spelling — \binom{n}{k},
//     {n \choose k}, C(n,k), C_n^k, {}^nC_k — floors, absolute values,
//     variables) are equal exactly when both evaluate over the rationals,
//     else when they agree within a relative 1e-9 over the complex
//     numbers, once for constants and at eight fixed random points for
//     variables (\sqrt{12} equals 2\sqrt{3}, 2(x+1) equals 2x+2); the
//     points are positive, so identities that need a sign (\sqrt{x^2} = x)
//     are accepted; degrees inside a trigonometric function are converted
//     to radians (\sin 30^\circ is 1/2) and dropped elsewhere (30^\circ is
//     30); sums \sum_{k=a}^{b} are summed when their bounds are integers,
//     else compared by bounds and body, so their factors commute;
//   - v = x (v a variable or f(x)) is the value x, and so is q = x for an
//     expression q without a constant term and a non-zero constant x
//     (m+n = 104 equals 104) when q = x is the prediction; a gold q = x is
//     not matched by a bare x (ReasonUnnamed); two named values of
//     different names compare as equations (x = 5 and y = 5 differ,
//     m+n = 104 and n+m = 104 do not); v \in S is S named v; a ratio of
//     names equal to a ratio (A:B = 3:5) is the ratio;
//   - other equations are equal when their sides' differences are
//     proportional (x+y=1 equals 2x+2y=2);
//   - inequalities compare relation by relation, in either direction
//     (x > 3 equals 3 < x); one of a single subject between constants is
//     an interval (x \geq 3 equals [3, \infty), 0 < g(x) < 2 equals
//     (0, 2)), and one of |v| the set of v (2 \leq |w| \leq 3 equals
//     w \in [-3,-2] \cup [2,3]); alternatives joined by "or" are a union;
//   - tuples and intervals compare item by item and must have the same
//     brackets: (1,2] is not (1,2) and (1,2) is not (2,1); a single
//     parenthesised item is that item; (x,y) = (1,2) names its items, and
//     equals (y,x) = (2,1) and x = 1, y = 2;
//   - lists separated by commas, semicolons, "and" or "or" (3 \text{ and }
//     9 is 3, 9), and \{...\}, are unordered sets of solutions, a \pm b is
//     the pair {a+b, a-b}, and unions of intervals are unordered; but named
//     values of distinct names (x = 1, y = 2) are an assignment, matched by
//     name or, against a list, in order; braces without backslashes are
//     grouping, so {2,5} is the list 2, 5, which against a tuple compares
//     in order ((2,5), not (5,2)); a set of one item is that item;
//   - matrices compare cell by cell, a scalar times a matrix is the matrix
//     of the products; a one-column or one-row matrix equals the tuple of
//     its cells;
//   - ∞ equals only ∞ of the same sign;
//   - anything else is text, equal when the strings are, ignoring ASCII
//     case.
//
// An answer that normalises to the empty string, or is longer than
// MaxAnswerLen, is never equal. Equal is symmetric but for the rule of
// ReasonUnnamed, deterministic and safe for concurrent use; it never
// panics. Its time is bounded: one comparison
// spends at most stepBudget steps of work and answers false when they run
// out (about 10 ms at worst on answers of MaxAnswerLen bytes built to be
// slow, tens of microseconds on benchmark answers).
func Equal(pred, gold string) bool { return Grade(pred, gold).Equal }
