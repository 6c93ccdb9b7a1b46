package derive

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/artist-rl/artist/envs/bfcl"
)

// EmptyState derives the public state of class, defined in the Python
// module src, loaded from an empty config the way the official checker
// loads it: the module's top level runs, the class is instantiated with no
// arguments, and _load_scenario({}, long_context=False) is called when the
// class defines it. The result holds each public attribute (name not
// starting with "_") in attribute order, converted as the conformance
// records are: sets become sorted lists, instances the dict of their
// public attributes, and an instance met again while it is being written
// (a directory's parent link) its name attribute.
func EmptyState(src, class string) (*bfcl.Dict, error) {
	mod, err := parseModule(src)
	if err != nil {
		return nil, fmt.Errorf("derive: %w", err)
	}
	st, err := emptyState(mod, class)
	if err != nil {
		return nil, fmt.Errorf("derive: %s: %w", class, err)
	}
	return st, nil
}

func emptyState(mod []stmt, className string) (*bfcl.Dict, error) {
	g, err := runModule(mod)
	if err != nil {
		return nil, err
	}
	c, ok := g[className].(*class)
	if !ok {
		return nil, fmt.Errorf("the module defines no class %s", className)
	}
	v, err := call(c, nil, nil)
	if err != nil {
		return nil, err
	}
	o := v.(*object)
	if m, ok := c.methods["_load_scenario"]; ok {
		fn := function{def: m, globals: c.globals}
		if _, err := callFunction(fn, []any{o, bfcl.NewDict()}, map[string]any{"long_context": false}); err != nil {
			return nil, fmt.Errorf("_load_scenario: %w", err)
		}
	}
	out, err := stateValue(o, nil, className)
	if err != nil {
		return nil, err
	}
	return out.(*bfcl.Dict), nil
}

// stateValue converts an interpreter value to its state record form.
// stack holds the instances being written; path names the value in errors.
func stateValue(v any, stack []*object, path string) (any, error) {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = stateValue(e, stack, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *bfcl.Dict:
		out := bfcl.NewDict()
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			sv, err := stateValue(e, stack, fmt.Sprintf("%s[%s]", path, bfcl.PyRepr(k)))
			if err != nil {
				return nil, err
			}
			out.Set(k, sv)
		}
		return out, nil
	case *pySetVal:
		return setList(x)
	case *object:
		for _, o := range stack {
			if o == x {
				name, _ := x.attrs.Get("name")
				return stateValue(name, nil, path+".name")
			}
		}
		out := bfcl.NewDict()
		for _, k := range x.attrs.Keys() {
			if strings.HasPrefix(k.(string), "_") {
				continue
			}
			e, _ := x.attrs.Get(k)
			sv, err := stateValue(e, append(stack, x), path+"."+k.(string))
			if err != nil {
				return nil, err
			}
			out.Set(k, sv)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s holds %s, which has no state form", path, typeName(v))
}

// setList returns a set's items sorted ascending; they must be all
// numbers or all strings.
func setList(s *pySetVal) ([]any, error) {
	out := append([]any{}, s.items...)
	var err error
	sort.SliceStable(out, func(i, j int) bool {
		if a, ok := out[i].(string); ok {
			if b, ok := out[j].(string); ok {
				return a < b
			}
		} else if a, ok := toFloat(out[i]); ok {
			if b, ok := toFloat(out[j]); ok {
				return a < b
			}
		}
		err = fmt.Errorf("cannot sort a set of %s and %s", typeName(out[i]), typeName(out[j]))
		return false
	})
	return out, err
}

func newSet(items []any) (*pySetVal, error) {
	s := &pySetVal{}
	for _, x := range items {
		if err := checkKey(x); err != nil {
			return nil, err
		}
		if in, _ := member(s, x); !in {
			s.items = append(s.items, x)
		}
	}
	return s, nil
}

// deepcopy copies a value the way copy.deepcopy does, keeping shared
// dicts, sets and instances shared within the copy.
func deepcopy(v any, memo map[any]any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepcopy(e, memo)
		}
		return out
	case *bfcl.Dict:
		if c, ok := memo[x]; ok {
			return c
		}
		out := bfcl.NewDict()
		memo[x] = out
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			out.Set(k, deepcopy(e, memo))
		}
		return out
	case *pySetVal:
		if c, ok := memo[x]; ok {
			return c
		}
		out := &pySetVal{items: append([]any{}, x.items...)}
		memo[x] = out
		return out
	case *object:
		if c, ok := memo[x]; ok {
			return c
		}
		out := &object{class: x.class}
		memo[x] = out
		out.attrs = deepcopy(x.attrs, memo).(*bfcl.Dict)
		return out
	}
	return v
}

// builtins are the builtin names the interpreter models.
var builtins map[string]builtin

func init() {
	fixed := func(name string, n int, f func(args []any) (any, error)) builtin {
		return builtin{name: name, call: func(args []any, kw map[string]any) (any, error) {
			if len(kw) > 0 || n >= 0 && len(args) != n {
				return nil, fmt.Errorf("%s() takes %d positional arguments", name, n)
			}
			return f(args)
		}}
	}
	optional := func(name string, f func(x any) (any, error), zero func() any) builtin {
		return builtin{name: name, call: func(args []any, kw map[string]any) (any, error) {
			if len(kw) > 0 || len(args) > 1 {
				return nil, fmt.Errorf("%s() takes at most 1 argument", name)
			}
			if len(args) == 0 {
				return zero(), nil
			}
			return f(args[0])
		}}
	}
	value := func(v any) func() any { return func() any { return v } }
	builtins = map[string]builtin{
		"deepcopy": fixed("deepcopy", 1, func(a []any) (any, error) { return deepcopy(a[0], map[any]any{}), nil }),
		"len": fixed("len", 1, func(a []any) (any, error) {
			if s, ok := a[0].(string); ok {
				return int64(len([]rune(s))), nil
			}
			items, err := iterate(a[0])
			return int64(len(items)), err
		}),
		"isinstance": fixed("isinstance", 2, func(a []any) (any, error) { return isInstance(a[0], a[1]) }),
		"super":      fixed("super", 0, func([]any) (any, error) { return opaque{what: "super()"}, nil }),
		"set": optional("set", func(x any) (any, error) {
			items, err := iterate(x)
			if err != nil {
				return nil, err
			}
			return newSet(items)
		}, func() any { return &pySetVal{} }),
		"list": optional("list", func(x any) (any, error) { return iterate(x) }, func() any { return []any{} }),
		"dict": optional("dict", func(x any) (any, error) {
			if d, ok := x.(*bfcl.Dict); ok {
				return shallowCopy(d), nil
			}
			return nil, fmt.Errorf("dict() of %s is not supported", typeName(x))
		}, func() any { return bfcl.NewDict() }),
		"str":   optional("str", toStr, value("")),
		"int":   optional("int", toInt, value(int64(0))),
		"float": optional("float", toFloatValue, value(0.0)),
		"bool":  optional("bool", func(x any) (any, error) { return truth(x) }, value(false)),
	}
}

func shallowCopy(d *bfcl.Dict) *bfcl.Dict {
	out := bfcl.NewDict()
	for _, k := range d.Keys() {
		v, _ := d.Get(k)
		out.Set(k, v)
	}
	return out
}

func toStr(x any) (any, error) {
	switch x.(type) {
	case nil, bool, int64, float64, string, []any, *bfcl.Dict:
		return bfcl.PyStr(x), nil
	}
	return nil, fmt.Errorf("str() of %s is not supported", typeName(x))
}

func toInt(x any) (any, error) {
	switch n := x.(type) {
	case int64:
		return n, nil
	case bool:
		if n {
			return int64(1), nil
		}
		return int64(0), nil
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) || math.Abs(n) >= 1<<63 {
			return nil, fmt.Errorf("cannot convert float %v to int", n)
		}
		return int64(n), nil
	case string:
		i, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimFunc(n, unicode.IsSpace), "_", ""), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid literal for int() with base 10: %s", bfcl.PyRepr(n))
		}
		return i, nil
	}
	return nil, fmt.Errorf("int() of %s is not supported", typeName(x))
}

func toFloatValue(x any) (any, error) {
	if f, ok := toFloat(x); ok {
		return f, nil
	}
	if s, ok := x.(string); ok {
		f, err := strconv.ParseFloat(strings.TrimFunc(s, unicode.IsSpace), 64)
		if err != nil {
			return nil, fmt.Errorf("could not convert string to float: %s", bfcl.PyRepr(s))
		}
		return f, nil
	}
	return nil, fmt.Errorf("float() of %s is not supported", typeName(x))
}

// isInstance is isinstance(x, t) for the builtin types, or a tuple of
// them.
func isInstance(x, t any) (bool, error) {
	if l, ok := t.([]any); ok {
		for _, e := range l {
			if in, err := isInstance(x, e); err != nil || in {
				return in, err
			}
		}
		return false, nil
	}
	b, ok := t.(builtin)
	if !ok {
		return false, fmt.Errorf("isinstance() against %s is not supported", typeName(t))
	}
	if _, ok := x.(opaque); ok {
		return false, fmt.Errorf("isinstance() of %s", typeName(x))
	}
	name := typeName(x)
	switch b.name {
	case "int":
		return name == "int" || name == "bool", nil
	case "str", "float", "bool", "list", "dict", "set":
		return name == b.name, nil
	}
	return false, fmt.Errorf("isinstance() against %s is not supported", b.name)
}

var dictMethods = map[string]func(d *bfcl.Dict, args []any) (any, error){
	"get": func(d *bfcl.Dict, args []any) (any, error) {
		if len(args) < 1 || len(args) > 2 {
			return nil, fmt.Errorf("dict.get takes 1 or 2 arguments")
		}
		if err := checkKey(args[0]); err != nil {
			return nil, err
		}
		if v, ok := d.Get(args[0]); ok {
			return v, nil
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return nil, nil
	},
	"keys":   func(d *bfcl.Dict, _ []any) (any, error) { return append([]any{}, d.Keys()...), nil },
	"values": func(d *bfcl.Dict, _ []any) (any, error) { return dictItems(d, func(_, v any) any { return v }), nil },
	"items": func(d *bfcl.Dict, _ []any) (any, error) {
		return dictItems(d, func(k, v any) any { return []any{k, v} }), nil
	},
	"copy": func(d *bfcl.Dict, _ []any) (any, error) { return shallowCopy(d), nil },
}

func dictItems(d *bfcl.Dict, f func(k, v any) any) []any {
	out := []any{}
	for _, k := range d.Keys() {
		v, _ := d.Get(k)
		out = append(out, f(k, v))
	}
	return out
}

var strMethods = map[string]func(s string) any{
	"isdigit": func(s string) any {
		for _, r := range s {
			if !unicode.IsDigit(r) {
				return false
			}
		}
		return s != ""
	},
	"lower": func(s string) any { return strings.ToLower(s) },
	"upper": func(s string) any { return strings.ToUpper(s) },
	"strip": func(s string) any { return strings.TrimFunc(s, unicode.IsSpace) },
}
