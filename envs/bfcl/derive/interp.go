package derive

import (
	"fmt"

	"github.com/artist-rl/artist/envs/bfcl"
)

// A small interpreter runs a module's top level and a class's __init__ and
// _load_scenario on an empty config, which is how the empty-config state is
// derived. It models only what that needs: str, int, float, bool, None,
// lists, dicts, sets, classes and instances, a few builtins and the
// methods dict.get/keys/values/items/copy and str.isdigit/lower/upper/
// strip. Imported names other than copy.deepcopy are opaque: storing,
// calling or taking attributes of them gives more opaque values, and any
// use that needs their value is an error. Unsupported statements and
// expressions are errors, so a derivation never silently departs from
// what Python would compute.

type (
	// class is a class defined by the module.
	class struct {
		name    string
		methods map[string]*pyFuncDef
		globals map[string]any
	}
	// object is an instance; attrs keeps Python's attribute order.
	object struct {
		class *class
		attrs *bfcl.Dict
	}
	// function is a def bound to the globals it was defined in.
	function struct {
		def     *pyFuncDef
		globals map[string]any
	}
	// boundMethod is a method taken from an instance.
	boundMethod struct {
		self *object
		fn   function
	}
	// builtin is a native function or type; types also serve isinstance.
	builtin struct {
		name string
		call func(args []any, kw map[string]any) (any, error)
	}
	// pySetVal is a set, in insertion order.
	pySetVal struct{ items []any }
	// opaque stands for a value the interpreter does not model.
	opaque struct{ what string }
)

// frame holds the variables of one running scope.
type frame struct{ locals, globals map[string]any }

func (f *frame) lookup(name string) (any, error) {
	if v, ok := f.locals[name]; ok {
		return v, nil
	}
	if v, ok := f.globals[name]; ok {
		return v, nil
	}
	if b, ok := builtins[name]; ok {
		return b, nil
	}
	return nil, fmt.Errorf("name '%s' is not defined", name)
}

// runModule executes a module's top level and returns its globals.
func runModule(mod []stmt) (map[string]any, error) {
	g := map[string]any{}
	if _, _, err := execBlock(mod, &frame{locals: g, globals: g}); err != nil {
		return nil, err
	}
	return g, nil
}

// execBlock runs statements; returned is set by a return statement.
func execBlock(body []stmt, f *frame) (ret any, returned bool, err error) {
	for _, s := range body {
		if ret, returned, err = execStmt(s, f); err != nil || returned {
			return ret, returned, err
		}
	}
	return nil, false, nil
}

func execStmt(s stmt, f *frame) (any, bool, error) {
	wrap := func(err error) error {
		if err == nil {
			return nil
		}
		return fmt.Errorf("line %d: %w", s.line(), err)
	}
	switch s := s.(type) {
	case *pyExprStmt:
		_, err := eval(s.X, f)
		return nil, false, err
	case *pyAssign, *pyAnnAssign, *pyAugAssign:
		return nil, false, wrap(execAssign(s, f))
	case *pyIf:
		return execIf(s, f, wrap)
	case *pyFor:
		return execFor(s, f, wrap)
	case *pyReturn:
		if s.Value == nil {
			return nil, true, nil
		}
		v, err := eval(s.Value, f)
		return v, err == nil, wrap(err)
	case *pyFuncDef:
		f.locals[s.Name] = function{def: s, globals: f.globals}
		return nil, false, nil
	case *pyClassDef:
		return nil, false, defineClass(s, f)
	case *pyImport:
		execImport(s, f)
		return nil, false, nil
	case *pySimple:
		if s.Kind == "pass" {
			return nil, false, nil
		}
	}
	return nil, false, fmt.Errorf("line %d: this statement is not supported by the state derivation", s.line())
}

// execAssign runs an assignment statement: plain (to each target in
// turn), annotated (an annotation alone binds nothing) or augmented.
func execAssign(s stmt, f *frame) error {
	switch s := s.(type) {
	case *pyAssign:
		v, err := eval(s.Value, f)
		for _, t := range s.Targets {
			if err == nil {
				err = assign(t, v, f)
			}
		}
		return err
	case *pyAnnAssign:
		if s.Value == nil {
			return nil
		}
		v, err := eval(s.Value, f)
		if err == nil {
			err = assign(s.Target, v, f)
		}
		return err
	case *pyAugAssign:
		cur, err := eval(s.Target, f)
		var v any
		if err == nil {
			v, err = eval(s.Value, f)
		}
		if err == nil {
			v, err = binop(s.Op, cur, v)
		}
		if err == nil {
			err = assign(s.Target, v, f)
		}
		return err
	}
	panic("derive: execAssign of a statement that assigns nothing")
}

func execIf(s *pyIf, f *frame, wrap func(error) error) (any, bool, error) {
	c, err := eval(s.Test, f)
	var t bool
	if err == nil {
		t, err = truth(c)
	}
	if err != nil {
		return nil, false, wrap(err)
	}
	if t {
		return execBlock(s.Body, f)
	}
	return execBlock(s.Else, f)
}

// execFor runs the body once per item; the else block runs when no
// return left the loop (the interpreter has no break).
func execFor(s *pyFor, f *frame, wrap func(error) error) (any, bool, error) {
	it, err := eval(s.Iter, f)
	var items []any
	if err == nil {
		items, err = iterate(it)
	}
	if err != nil {
		return nil, false, wrap(err)
	}
	for _, x := range items {
		if err := assign(s.Target, x, f); err != nil {
			return nil, false, wrap(err)
		}
		if ret, returned, err := execBlock(s.Body, f); err != nil || returned {
			return ret, returned, err
		}
	}
	return execBlock(s.Else, f)
}

// defineClass binds a class of methods (a docstring and pass allowed).
func defineClass(s *pyClassDef, f *frame) error {
	c := &class{name: s.Name, methods: map[string]*pyFuncDef{}, globals: f.globals}
	for _, m := range s.Body {
		switch m := m.(type) {
		case *pyFuncDef:
			c.methods[m.Name] = m
		case *pyExprStmt: // docstring
		case *pySimple:
			if m.Kind != "pass" {
				return fmt.Errorf("line %d: class %s: only methods are supported in a class body", m.line(), s.Name)
			}
		default:
			return fmt.Errorf("line %d: class %s: only methods are supported in a class body", m.line(), s.Name)
		}
	}
	f.locals[s.Name] = c
	return nil
}

// execImport binds imported names: copy.deepcopy to the builtin, any
// other to an opaque value that names it.
func execImport(s *pyImport, f *frame) {
	for _, n := range s.Names {
		if s.Module == "copy" && n.Name == "deepcopy" {
			f.locals[n.As] = builtins["deepcopy"]
		} else {
			f.locals[n.As] = opaque{what: joinDotted(s.Module, n.Name)}
		}
	}
}

func joinDotted(module, name string) string {
	if module == "" {
		return name
	}
	return module + "." + name
}

// assign stores v into a target: a name, an attribute of an instance, a
// dict or list item, or a tuple/list of targets to unpack into.
func assign(t expr, v any, f *frame) error {
	switch t := t.(type) {
	case *pyName:
		f.locals[t.ID] = v
		return nil
	case *pyAttribute:
		x, err := eval(t.X, f)
		if err != nil {
			return err
		}
		o, ok := x.(*object)
		if !ok {
			return fmt.Errorf("cannot set attribute %s on %s", t.Attr, typeName(x))
		}
		o.attrs.Set(t.Attr, v)
		return nil
	case *pySubscript:
		x, err := eval(t.X, f)
		if err != nil {
			return err
		}
		k, err := eval(t.Index, f)
		if err != nil {
			return err
		}
		switch c := x.(type) {
		case *bfcl.Dict:
			if err := checkKey(k); err != nil {
				return err
			}
			c.Set(k, v)
			return nil
		case []any:
			i, err := listIndex(c, k)
			if err != nil {
				return err
			}
			c[i] = v
			return nil
		}
		return fmt.Errorf("'%s' object does not support item assignment", typeName(x))
	case *pyTuple, *pyList:
		var elts []expr
		if tt, ok := t.(*pyTuple); ok {
			elts = tt.Elts
		} else {
			elts = t.(*pyList).Elts
		}
		items, err := iterate(v)
		if err != nil {
			return err
		}
		if len(items) != len(elts) {
			return fmt.Errorf("cannot unpack %d values into %d targets", len(items), len(elts))
		}
		for i, e := range elts {
			if err := assign(e, items[i], f); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("cannot assign to %s", nodeName(t))
}

// checkKey rejects dict keys that package bfcl cannot hold.
func checkKey(k any) error {
	switch k.(type) {
	case string, int64, bool, float64, nil:
		return nil
	}
	return fmt.Errorf("unhashable or unsupported dict key of type %s", typeName(k))
}

func listIndex(l []any, k any) (int, error) {
	i, ok := k.(int64)
	if !ok {
		return 0, fmt.Errorf("list indices must be integers, not %s", typeName(k))
	}
	if i < 0 {
		i += int64(len(l))
	}
	if i < 0 || i >= int64(len(l)) {
		return 0, fmt.Errorf("list index out of range")
	}
	return int(i), nil
}

// iterate lists the items a for loop over v visits.
func iterate(v any) ([]any, error) {
	switch c := v.(type) {
	case []any:
		return append([]any(nil), c...), nil
	case *bfcl.Dict:
		return append([]any(nil), c.Keys()...), nil
	case *pySetVal:
		return append([]any(nil), c.items...), nil
	case string:
		var out []any
		for _, r := range c {
			out = append(out, string(r))
		}
		return out, nil
	}
	return nil, fmt.Errorf("'%s' object is not iterable", typeName(v))
}

// truth is Python's truth value of v.
func truth(v any) (bool, error) {
	switch x := v.(type) {
	case nil:
		return false, nil
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	case float64:
		return x != 0, nil
	case string:
		return x != "", nil
	case []any:
		return len(x) > 0, nil
	case *bfcl.Dict:
		return x.Len() > 0, nil
	case *pySetVal:
		return len(x.items) > 0, nil
	case *object, *class, function, boundMethod, builtin:
		return true, nil
	}
	return false, fmt.Errorf("the truth value of %s is not modelled", typeName(v))
}

// equal is Python's == for the modelled values; instances compare by
// identity.
func equal(a, b any) (bool, error) {
	if _, ok := a.(opaque); ok {
		return false, fmt.Errorf("cannot compare %s", typeName(a))
	}
	if _, ok := b.(opaque); ok {
		return false, fmt.Errorf("cannot compare %s", typeName(b))
	}
	oa, aObj := a.(*object)
	ob, bObj := b.(*object)
	if aObj || bObj {
		return aObj && bObj && oa == ob, nil
	}
	if sa, ok := a.(*pySetVal); ok {
		sb, ok := b.(*pySetVal)
		return ok && bfcl.Equal(sortedItems(sa), sortedItems(sb)), nil
	}
	return bfcl.Equal(a, b), nil
}

func sortedItems(s *pySetVal) []any {
	v, err := setList(s)
	if err != nil {
		return s.items
	}
	return v
}
