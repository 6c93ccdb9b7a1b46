package derive

import (
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs/bfcl"
)

// eval evaluates an expression in frame f.
func eval(x expr, f *frame) (any, error) {
	switch x := x.(type) {
	case *pyConst:
		return x.Value, nil
	case *pyName:
		return f.lookup(x.ID)
	case *pyList:
		return evalList(x.Elts, f)
	case *pyTuple:
		return evalList(x.Elts, f)
	case *pySet:
		items, err := evalList(x.Elts, f)
		if err != nil {
			return nil, err
		}
		return newSet(items)
	case *pyDict:
		return evalDict(x, f)
	case *pyComp:
		return evalComp(x, f)
	case *pyAttribute:
		v, err := eval(x.X, f)
		if err != nil {
			return nil, err
		}
		return getattr(v, x.Attr)
	case *pySubscript:
		v, k, err := eval2(x.X, x.Index, f)
		if err != nil {
			return nil, err
		}
		return index(v, k)
	case *pyCall:
		return evalCall(x, f)
	case *pyBinOp:
		a, b, err := eval2(x.L, x.R, f)
		if err != nil {
			return nil, err
		}
		return binop(x.Op, a, b)
	case *pyUnaryOp:
		return evalUnary(x, f)
	case *pyBoolOp:
		return evalBoolOp(x, f)
	case *pyCompare:
		return evalCompare(x, f)
	case *pyIfExp:
		return evalIfExp(x, f)
	}
	return nil, fmt.Errorf("line %d: %s is not supported by the state derivation", x.line(), nodeName(x))
}

// eval2 evaluates a, then b.
func eval2(a, b expr, f *frame) (any, any, error) {
	va, err := eval(a, f)
	if err != nil {
		return nil, nil, err
	}
	vb, err := eval(b, f)
	if err != nil {
		return nil, nil, err
	}
	return va, vb, nil
}

// evalDict builds a dict display, keys and values in source order.
func evalDict(x *pyDict, f *frame) (any, error) {
	d := bfcl.NewDict()
	for i, kx := range x.Keys {
		if kx == nil {
			return nil, fmt.Errorf("line %d: ** in a dict display is not supported", x.Line)
		}
		k, v, err := eval2(kx, x.Values[i], f)
		if err != nil {
			return nil, err
		}
		if err := checkKey(k); err != nil {
			return nil, err
		}
		d.Set(k, v)
	}
	return d, nil
}

// evalCall evaluates the callee, the positional arguments, then the
// keyword ones, and calls.
func evalCall(x *pyCall, f *frame) (any, error) {
	fn, err := eval(x.Func, f)
	if err != nil {
		return nil, err
	}
	args, err := evalList(x.Args, f)
	if err != nil {
		return nil, err
	}
	kw := map[string]any{}
	for _, k := range x.Kw {
		if k.Name == "" {
			return nil, fmt.Errorf("line %d: **kwargs in a call is not supported", x.Line)
		}
		if kw[k.Name], err = eval(k.Value, f); err != nil {
			return nil, err
		}
	}
	return call(fn, args, kw)
}

func evalUnary(x *pyUnaryOp, f *frame) (any, error) {
	v, err := eval(x.X, f)
	if err != nil {
		return nil, err
	}
	if x.Op == "not" {
		t, err := truth(v)
		return !t, err
	}
	return negate(x.Op, v)
}

// evalBoolOp short-circuits as Python does: the first operand that
// decides, else the last.
func evalBoolOp(x *pyBoolOp, f *frame) (any, error) {
	var v any
	for _, e := range x.Values {
		var err error
		if v, err = eval(e, f); err != nil {
			return nil, err
		}
		t, err := truth(v)
		if err != nil {
			return nil, err
		}
		if t == (x.Op == "or") {
			return v, nil
		}
	}
	return v, nil
}

// evalCompare chains comparisons (a < b < c), each operand evaluated
// once and the chain stopping at the first false.
func evalCompare(x *pyCompare, f *frame) (any, error) {
	a, err := eval(x.Left, f)
	if err != nil {
		return nil, err
	}
	for i, op := range x.Ops {
		b, err := eval(x.Comps[i], f)
		if err != nil {
			return nil, err
		}
		ok, err := compare(op, a, b)
		if err != nil || !ok {
			return false, err
		}
		a = b
	}
	return true, nil
}

func evalIfExp(x *pyIfExp, f *frame) (any, error) {
	c, err := eval(x.Test, f)
	if err != nil {
		return nil, err
	}
	t, err := truth(c)
	if err != nil {
		return nil, err
	}
	if t {
		return eval(x.Body, f)
	}
	return eval(x.Else, f)
}

func evalList(elts []expr, f *frame) ([]any, error) {
	out := []any{}
	for _, e := range elts {
		if _, ok := e.(*pyStarred); ok {
			return nil, fmt.Errorf("line %d: starred expressions are not supported", e.line())
		}
		v, err := eval(e, f)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// evalComp evaluates a comprehension in its own scope.
func evalComp(c *pyComp, f *frame) (any, error) {
	inner := &frame{locals: map[string]any{}, globals: f.globals}
	for k, v := range f.locals {
		inner.locals[k] = v
	}
	var items []any
	dict := bfcl.NewDict()
	var loop func(g int) error
	loop = func(g int) error {
		if g == len(c.Gens) {
			if c.Kind == "dict" {
				k, err := eval(c.Key, inner)
				if err != nil {
					return err
				}
				v, err := eval(c.Value, inner)
				if err != nil {
					return err
				}
				if err := checkKey(k); err != nil {
					return err
				}
				dict.Set(k, v)
				return nil
			}
			v, err := eval(c.Elt, inner)
			items = append(items, v)
			return err
		}
		gen := c.Gens[g]
		it, err := eval(gen.Iter, inner)
		if err != nil {
			return err
		}
		xs, err := iterate(it)
		if err != nil {
			return err
		}
	next:
		for _, x := range xs {
			if err := assign(gen.Target, x, inner); err != nil {
				return err
			}
			for _, cond := range gen.Ifs {
				v, err := eval(cond, inner)
				if err != nil {
					return err
				}
				if t, err := truth(v); err != nil {
					return err
				} else if !t {
					continue next
				}
			}
			if err := loop(g + 1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := loop(0); err != nil {
		return nil, err
	}
	switch c.Kind {
	case "dict":
		return dict, nil
	case "set":
		return newSet(items)
	}
	if items == nil {
		items = []any{}
	}
	return items, nil // a list, or a generator consumed at once
}

func index(v, k any) (any, error) {
	switch c := v.(type) {
	case *bfcl.Dict:
		x, ok := c.Get(k)
		if !ok {
			return nil, fmt.Errorf("KeyError: %s", bfcl.PyRepr(k))
		}
		return x, nil
	case []any:
		i, err := listIndex(c, k)
		if err != nil {
			return nil, err
		}
		return c[i], nil
	case opaque:
		return opaque{what: c.what + "[...]"}, nil
	}
	return nil, fmt.Errorf("'%s' object is not subscriptable", typeName(v))
}

func binop(op string, a, b any) (any, error) {
	if op == "+" {
		if sa, ok := a.(string); ok {
			if sb, ok := b.(string); ok {
				return sa + sb, nil
			}
		}
		if la, ok := a.([]any); ok {
			if lb, ok := b.([]any); ok {
				return append(append([]any{}, la...), lb...), nil
			}
		}
	}
	if _, ok := a.(bool); ok {
		return nil, fmt.Errorf("arithmetic on bool is not supported")
	}
	if _, ok := b.(bool); ok {
		return nil, fmt.Errorf("arithmetic on bool is not supported")
	}
	return arith(op, a, b, 0)
}

func compare(op string, a, b any) (bool, error) {
	switch op {
	case "==", "!=":
		eq, err := equal(a, b)
		return eq == (op == "=="), err
	case "is", "is not":
		same := a == nil && b == nil
		if ba, ok := a.(bool); ok {
			bb, ok := b.(bool)
			same = ok && ba == bb
		}
		if oa, ok := a.(*object); ok {
			same = oa == b
		}
		return same == (op == "is"), nil
	case "in", "not in":
		in, err := member(b, a)
		return in == (op == "in"), err
	}
	if sa, ok := a.(string); ok {
		if sb, ok := b.(string); ok {
			return map[string]bool{"<": sa < sb, "<=": sa <= sb, ">": sa > sb, ">=": sa >= sb}[op], nil
		}
	}
	fa, okA := toFloat(a)
	fb, okB := toFloat(b)
	if !okA || !okB {
		return false, fmt.Errorf("'%s' not supported between %s and %s", op, typeName(a), typeName(b))
	}
	return map[string]bool{"<": fa < fb, "<=": fa <= fb, ">": fa > fb, ">=": fa >= fb}[op], nil
}

// member is Python's "x in c".
func member(c, x any) (bool, error) {
	switch c := c.(type) {
	case *bfcl.Dict:
		if err := checkKey(x); err != nil {
			return false, err
		}
		return c.Has(x), nil
	case string:
		s, ok := x.(string)
		if !ok {
			return false, fmt.Errorf("'in <string>' requires string as left operand")
		}
		return strings.Contains(c, s), nil
	case []any, *pySetVal:
		items, _ := iterate(c)
		for _, y := range items {
			if eq, err := equal(x, y); err != nil || eq {
				return eq, err
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", typeName(c))
}

// call calls a function, class, method or builtin.
func call(fn any, args []any, kw map[string]any) (any, error) {
	switch fn := fn.(type) {
	case builtin:
		return fn.call(args, kw)
	case function:
		return callFunction(fn, args, kw)
	case boundMethod:
		return callFunction(fn.fn, append([]any{fn.self}, args...), kw)
	case *class:
		o := &object{class: fn, attrs: bfcl.NewDict()}
		if init, ok := fn.methods["__init__"]; ok {
			if _, err := callFunction(function{def: init, globals: fn.globals}, append([]any{o}, args...), kw); err != nil {
				return nil, fmt.Errorf("%s.__init__: %w", fn.name, err)
			}
		}
		return o, nil
	case opaque:
		return opaque{what: fn.what + "()"}, nil
	}
	return nil, fmt.Errorf("'%s' object is not callable", typeName(fn))
}

func callFunction(fn function, args []any, kw map[string]any) (any, error) {
	f := &frame{locals: map[string]any{}, globals: fn.globals}
	used := map[string]bool{}
	for _, p := range fn.def.Params {
		switch {
		case p.Kind == "*":
			f.locals[p.Name] = args
			args = nil
		case p.Kind == "**":
			return nil, fmt.Errorf("%s(): **%s parameters are not supported", fn.def.Name, p.Name)
		case len(args) > 0:
			f.locals[p.Name], args = args[0], args[1:]
		default:
			if v, ok := kw[p.Name]; ok {
				f.locals[p.Name], used[p.Name] = v, true
			} else if p.Default != nil {
				v, err := eval(p.Default, &frame{locals: fn.globals, globals: fn.globals})
				if err != nil {
					return nil, err
				}
				f.locals[p.Name] = v
			} else {
				return nil, fmt.Errorf("%s() missing required argument '%s'", fn.def.Name, p.Name)
			}
		}
	}
	if len(args) > 0 {
		return nil, fmt.Errorf("%s() got too many positional arguments", fn.def.Name)
	}
	for k := range kw {
		if !used[k] {
			return nil, fmt.Errorf("%s() got an unexpected keyword argument '%s'", fn.def.Name, k)
		}
	}
	ret, _, err := execBlock(fn.def.Body, f)
	return ret, err
}

// getattr is x.name for instances, opaque values and the modelled methods
// of dicts and strings.
func getattr(x any, name string) (any, error) {
	switch v := x.(type) {
	case *object:
		if a, ok := v.attrs.Get(name); ok {
			return a, nil
		}
		if m, ok := v.class.methods[name]; ok {
			return boundMethod{self: v, fn: function{def: m, globals: v.class.globals}}, nil
		}
		return nil, fmt.Errorf("'%s' object has no attribute '%s'", v.class.name, name)
	case opaque:
		return opaque{what: v.what + "." + name}, nil
	case *bfcl.Dict:
		if m, ok := dictMethods[name]; ok {
			return builtin{name: "dict." + name, call: func(args []any, kw map[string]any) (any, error) {
				return m(v, args)
			}}, nil
		}
	case string:
		if m, ok := strMethods[name]; ok {
			return builtin{name: "str." + name, call: func(args []any, kw map[string]any) (any, error) {
				if len(args) > 0 || len(kw) > 0 {
					return nil, fmt.Errorf("str.%s() with arguments is not supported", name)
				}
				return m(v), nil
			}}, nil
		}
	}
	return nil, fmt.Errorf("attribute %s of %s is not supported", name, typeName(x))
}
