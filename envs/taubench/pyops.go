package taubench

import (
	"github.com/artist-rl/artist/internal/pyval"
)

// The helpers below give agent-supplied arguments Python's behaviour
// where the tools index or iterate them, with TypeError and KeyError texts
// close to CPython's. The gold actions never reach the error paths.

// item is v[k] for a string key.
func item(v any, k string) (any, error) {
	switch x := v.(type) {
	case *pyval.Dict:
		got, ok := x.Get(k)
		if !ok {
			return nil, keyError(k)
		}
		return got, nil
	case []any:
		return nil, toolError("list indices must be integers or slices, not str")
	case string:
		return nil, toolError("string indices must be integers, not 'str'")
	}
	return nil, errorf("'%s' object is not subscriptable", pyval.TypeName(v))
}

// iterList returns the elements a for loop over v visits: a list's
// elements, a dict's keys, a string's characters.
func iterList(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case *pyval.Dict:
		return append([]any(nil), x.Keys()...), nil
	case string:
		out := []any{}
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	}
	return nil, errorf("'%s' object is not iterable", pyval.TypeName(v))
}

// has is Python's `k in d` for a dict d; an unhashable k raises.
func has(d *pyval.Dict, k any) (bool, error) {
	switch k.(type) {
	case []any, *pyval.Dict:
		return false, errorf("unhashable type: '%s'", pyval.TypeName(k))
	}
	return d.Has(k), nil
}

// less is Python's a < b for numbers and strings.
func less(a, b any) (bool, error) {
	if pyval.IsNumber(a) && pyval.IsNumber(b) {
		return pyval.Less(a, b), nil
	}
	sa, okA := a.(string)
	sb, okB := b.(string)
	if okA && okB {
		return sa < sb, nil
	}
	return false, errorf("'<' not supported between instances of '%s' and '%s'", pyval.TypeName(a), pyval.TypeName(b))
}

// arith applies a Python numeric operator, raising TypeError for
// non-numbers as Python does.
func arith(op string, a, b any) (any, error) {
	if !pyval.IsNumber(a) || !pyval.IsNumber(b) {
		return nil, errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, pyval.TypeName(a), pyval.TypeName(b))
	}
	switch op {
	case "+":
		return pyval.Add(a, b), nil
	case "-":
		return pyval.Sub(a, b), nil
	}
	return pyval.Mul(a, b), nil
}
