package mathgrade

import (
	"math"
	"strings"
)

// Sums: \sum_{k=a}^{b} body. The body extends over the product that
// follows (\sum_{k=1}^{n} a_k b_k sums a_k b_k). A sum whose bounds are
// integers at an evaluation point, at most maxSumTerms apart, is summed
// term by term with the index bound to each integer. Any other sum, or one
// whose body names the index in a subscript (a_k, whose terms the grader
// cannot tell apart), has a formal value: a fixed complex combination of
// its bounds and of its body at fixed values of the index. So two sums with
// the same bounds and bodies equal as functions of the index are equal
// (the factors of a_k b_{n-k} commute), and a formal sum equals no real
// closed form.

// maxSumTerms is the most terms summed one by one.
const maxSumTerms = 200

// sumIndexPoints are the values of the index at which a formal sum
// evaluates its body, with their weights sumWeights; sumBoundWeights weigh
// the lower and upper bounds.
var (
	sumIndexPoints  = [...]float64{0.37, 1.61, 2.72, 4.19}
	sumWeights      = [...]complex128{complex(0.61, 0.43), complex(-0.29, 0.77), complex(0.83, -0.51), complex(0.17, 0.93)}
	sumBoundWeights = [2]complex128{complex(0.71, -0.37), complex(-0.47, 0.59)}
)

// bigSum reads the bounds and body of \sum, after the command: _{k=a} and
// ^b in either order, then the body.
func (p *exprParser) bigSum() (*expr, error) {
	var idx string
	var lo, hi *expr
	var err error
	for p.space(); p.peek() == '_' || p.peek() == '^'; p.space() {
		c := p.peek()
		p.pos++
		switch {
		case c == '^' && hi == nil:
			if hi, err = p.arg(); err != nil {
				return nil, err
			}
		case c == '_' && idx == "" && p.peek() == '{':
			end := closingBrace(p.s, p.pos)
			name, from, ok := strings.Cut(p.s[p.pos+1:max(end, p.pos+1)], "=")
			if end < 0 || !ok || !isIndexName(name) {
				return nil, errSyntax
			}
			if lo, err = parseExpr(from, p.b); err != nil {
				return nil, err
			}
			idx, p.pos = name, end+1
		default:
			return nil, errSyntax
		}
	}
	if idx == "" || hi == nil {
		return nil, errSyntax
	}
	body, err := p.term()
	if err != nil {
		return nil, err
	}
	return &expr{op: opSum, name: idx, hash: nameHash(idx), args: []*expr{lo, hi, body}, formal: indexedVar(body, idx)}, nil
}

// isIndexName reports whether s is a letter, the index of a sum.
func isIndexName(s string) bool { return len(s) == 1 && isLetter(s[0]) }

// indexedVar reports whether e has a variable whose subscript names idx.
func indexedVar(e *expr, idx string) bool {
	if e.op == opVar {
		_, sub, ok := strings.Cut(e.name, "_")
		return ok && strings.Contains(sub, idx)
	}
	for _, a := range e.args {
		if indexedVar(a, idx) {
			return true
		}
	}
	return false
}

// evalSum evaluates a sum at the evaluator's point (see the comment at the
// top of this file).
func (ev *evaluator) evalSum(e *expr) complex128 {
	lo, hi := ev.eval(e.args[0]), ev.eval(e.args[1])
	if !finite(lo) || !finite(hi) {
		return nan
	}
	a, b := real(lo), real(hi)
	if !e.formal && imag(lo) == 0 && imag(hi) == 0 && a == math.Round(a) && b == math.Round(b) && b-a < maxSumTerms {
		var total complex128
		for k := a; k <= b; k++ {
			total += ev.bound(e.hash, complex(k, 0), e.args[2])
		}
		return total
	}
	total := sumBoundWeights[0]*lo + sumBoundWeights[1]*hi
	for j, k := range sumIndexPoints {
		total += sumWeights[j] * ev.bound(e.hash, complex(k, 0), e.args[2])
	}
	return total
}

// bound evaluates body with the variable whose name hashes to h set to v.
func (ev *evaluator) bound(h uint64, v complex128, body *expr) complex128 {
	ev.vars = append(ev.vars, boundVar{h, v})
	x := ev.eval(body)
	ev.vars = ev.vars[:len(ev.vars)-1]
	return x
}

// A boundVar is the index of a sum being evaluated, by its name's hash,
// and its value.
type boundVar struct {
	hash uint64
	v    complex128
}

// varAt is the value of the variable whose name hashes to h: the innermost
// sum index of that name, else its value at the evaluation point.
func (ev *evaluator) varAt(h uint64) complex128 {
	for i := len(ev.vars) - 1; i >= 0; i-- {
		if ev.vars[i].hash == h {
			return ev.vars[i].v
		}
	}
	return complex(varValue(h, ev.point), 0)
}
