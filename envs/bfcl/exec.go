package bfcl

import (
	"errors"
	"fmt"
	"github.com/artist-rl/artist/internal/pyval"
	"strings"
)

// kind is the Python type a parameter accepts.
type kind int

const (
	kAny  kind = iota
	kStr       // str
	kNum       // int or float (bool counts as int)
	kInt       // int
	kBool      // bool
	kList      // list
	kDict      // dict
)

func (k kind) String() string {
	return [...]string{"object", "str", "float", "int", "bool", "list", "dict"}[k]
}

// param declares one parameter; a parameter with a default is optional.
type param struct {
	name   string
	kind   kind
	hasDef bool
	def    any
}

func req(name string, k kind) param { return param{name: name, kind: k} }
func opt(name string, k kind, def any) param {
	return param{name: name, kind: k, hasDef: true, def: def}
}

// method is one callable function of an API class.
type method struct {
	params []param
	fn     func(a args) (any, error)
}

// api is one environment class instance.
type api interface {
	// state returns the public attributes in the conformance format.
	state() *Dict
	// methods returns the callable functions by name.
	methods() map[string]method
}

// args holds bound arguments by parameter name.
type args map[string]any

func (a args) str(n string) string   { s, _ := a[n].(string); return s }
func (a args) isNone(n string) bool  { return a[n] == nil }
func (a args) boolean(n string) bool { b, _ := a[n].(bool); return b }
func (a args) list(n string) []any   { l, _ := a[n].([]any); return l }
func (a args) dict(n string) *Dict   { d, _ := a[n].(*Dict); return d }

// integer returns an int argument.
func (a args) integer(n string) int64 {
	switch x := a[n].(type) {
	case int64:
		return x
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// raise is a Python exception: its message follows "Error during execution: ".
type raise struct{ msg string }

func (r raise) Error() string { return r.msg }

func raisef(format string, a ...any) error { return raise{fmt.Sprintf(format, a...)} }

// forbidden are names the reference refuses to evaluate.
var forbidden = map[string]bool{"kill": true, "exit": true, "quit": true, "remove": true,
	"unlink": true, "popen": true, "Popen": true, "run": true}

// ErrorPrefix starts every result of a call that raised.
const ErrorPrefix = "Error during execution: "

// bind matches positional and keyword arguments to params, Python style.
func bind(qual string, ps []param, c Call) (args, error) {
	if len(c.Args) > len(ps) {
		return nil, raisef("%s() takes %d positional argument%s but %d were given",
			qual, len(ps)+1, plural(len(ps)+1), len(c.Args)+1)
	}
	a := args{}
	for i, v := range c.Args {
		a[ps[i].name] = v
	}
	for _, kw := range c.Kwargs {
		found := false
		for _, p := range ps {
			found = found || p.name == kw.Name
		}
		if !found {
			return nil, raisef("%s() got an unexpected keyword argument '%s'", qual, kw.Name)
		}
		if _, dup := a[kw.Name]; dup {
			return nil, raisef("%s() got multiple values for argument '%s'", qual, kw.Name)
		}
		a[kw.Name] = kw.Value
	}
	var missing []string
	for _, p := range ps {
		if _, ok := a[p.name]; !ok {
			if p.hasDef {
				a[p.name] = DeepCopy(p.def)
				continue
			}
			missing = append(missing, "'"+p.name+"'")
		}
	}
	if len(missing) > 0 {
		return nil, raisef("%s() missing %d required positional argument%s: %s",
			qual, len(missing), plural(len(missing)), joinPy(missing))
	}
	for _, p := range ps {
		if err := checkKind(qual, p, a[p.name]); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// joinPy joins names as Python's argument errors do: 'a', 'b', and 'c'.
func joinPy(s []string) string {
	switch len(s) {
	case 1:
		return s[0]
	case 2:
		return s[0] + " and " + s[1]
	}
	return strings.Join(s[:len(s)-1], ", ") + ", and " + s[len(s)-1]
}

func checkKind(qual string, p param, v any) error {
	if v == nil && p.hasDef && p.def == nil {
		return nil
	}
	ok := true
	switch p.kind {
	case kStr:
		_, ok = v.(string)
	case kNum:
		switch v.(type) {
		case int64, float64, bool:
		default:
			ok = false
		}
	case kInt:
		switch v.(type) {
		case int64, bool:
		default:
			ok = false
		}
	case kBool:
		_, ok = v.(bool)
	case kList:
		_, ok = v.([]any)
	case kDict:
		_, ok = v.(*Dict)
	}
	if !ok {
		return raisef("%s() argument '%s' must be %s, not %s", qual, p.name, p.kind, pyval.TypeName(v))
	}
	return nil
}

// errWithheld is the result text for a call to a function not yet offered.
func errWithheld(name string) string {
	return ErrorPrefix + fmt.Sprintf("function '%s' is not available at this point", name)
}

// execute runs one parsed call against the bound methods and returns the
// result string.
func (e *Env) execute(c Call) string {
	short := c.Name
	if i := strings.LastIndexByte(short, '.'); i >= 0 {
		short = short[i+1:]
	}
	if forbidden[short] {
		return ErrorPrefix + fmt.Sprintf("Function call %s is not allowed.", short)
	}
	b, ok := e.index[c.Name]
	if !ok {
		return ErrorPrefix + fmt.Sprintf("name '%s' is not defined", c.Name)
	}
	if e.withheld[c.Name] {
		return errWithheld(c.Name)
	}
	a, err := bind(b.class+"."+c.Name, b.m.params, c)
	if err == nil {
		var v any
		v, err = b.m.fn(a)
		if err == nil {
			return ResultString(v)
		}
	}
	var r raise
	if errors.As(err, &r) {
		return ErrorPrefix + r.msg
	}
	return ErrorPrefix + err.Error()
}
