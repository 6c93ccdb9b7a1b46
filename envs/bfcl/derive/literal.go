package derive

import (
	"fmt"
	"github.com/artist-rl/artist/internal/pyval"
	"math"

	"github.com/artist-rl/artist/envs/bfcl"
)

// Literal evaluates src, one Python expression, the way Python's
// ast.literal_eval does, into the value types of package bfcl: str is
// string, int int64, float float64, True/False bool, None nil, Ellipsis
// bfcl.Ellipsis, lists and tuples []any, dicts *bfcl.Dict in source order
// (a repeated key keeps its first place and its last value). It also folds
// +, -, * and / between numeric constants with Python's int/float rules
// (5 / 9 is a float, 2 * 3 an int). Sets, bytes, complex numbers, dict keys
// other than str and int, and ints beyond 64 bits are errors.
func Literal(src string) (any, error) {
	x, err := parseExpression(src, 1)
	if err != nil {
		return nil, fmt.Errorf("derive: %w", err)
	}
	v, err := literal(x)
	if err != nil {
		return nil, fmt.Errorf("derive: %w", err)
	}
	return v, nil
}

// Constants evaluates the module-level constants of a Python module: each
// top-level "NAME = literal" statement, in source order, with values as
// Literal gives them. Imports and a module docstring are skipped; any other
// statement, or a value that is not a literal, is an error naming its line.
func Constants(src string) (*bfcl.Dict, error) {
	d, err := constants(src)
	if err != nil {
		return nil, fmt.Errorf("derive: %w", err)
	}
	return d, nil
}

func constants(src string) (*bfcl.Dict, error) {
	mod, err := parseModule(src)
	if err != nil {
		return nil, err
	}
	out := bfcl.NewDict()
	for i, s := range mod {
		switch s := s.(type) {
		case *pyImport:
			continue
		case *pyExprStmt:
			if c, ok := s.X.(*pyConst); ok && i == 0 {
				if _, ok := c.Value.(string); ok {
					continue
				}
			}
		case *pyAssign:
			n, ok := s.Targets[0].(*pyName)
			if len(s.Targets) != 1 || !ok {
				return nil, fmt.Errorf("line %d: only NAME = literal assignments are supported", s.Line)
			}
			v, err := literal(s.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n.ID, err)
			}
			out.Set(n.ID, v)
			continue
		}
		return nil, fmt.Errorf("line %d: a module of constants may hold only NAME = literal assignments", s.line())
	}
	return out, nil
}

// literal evaluates a literal expression node.
func literal(x expr) (any, error) {
	switch x := x.(type) {
	case *pyConst:
		return x.Value, nil
	case *pyList:
		return literalList(x.Elts)
	case *pyTuple:
		return literalList(x.Elts)
	case *pyDict:
		d := bfcl.NewDict()
		for i, kx := range x.Keys {
			if kx == nil {
				return nil, fmt.Errorf("line %d: ** in a dict literal is not a literal", x.Line)
			}
			k, err := literal(kx)
			if err != nil {
				return nil, err
			}
			switch k.(type) {
			case string, int64:
			default:
				return nil, fmt.Errorf("line %d: dict key of type %s is not supported", kx.line(), typeName(k))
			}
			v, err := literal(x.Values[i])
			if err != nil {
				return nil, err
			}
			d.Set(k, v)
		}
		return d, nil
	case *pyUnaryOp:
		v, err := literal(x.X)
		if err != nil {
			return nil, err
		}
		n, err := negate(x.Op, v)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", x.Line, err)
		}
		return n, nil
	case *pyBinOp:
		a, err := literal(x.L)
		if err != nil {
			return nil, err
		}
		b, err := literal(x.R)
		if err != nil {
			return nil, err
		}
		return arith(x.Op, a, b, x.Line)
	case *pySet:
		return nil, fmt.Errorf("line %d: set literals are not supported", x.Line)
	}
	return nil, fmt.Errorf("line %d: %s is not a literal", x.line(), nodeName(x))
}

func literalList(elts []expr) (any, error) {
	out := make([]any, 0, len(elts))
	for _, e := range elts {
		v, err := literal(e)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// arith applies +, -, * or / to two numbers with Python's rules: int op int
// stays int (an overflow is an error) except for /, and a float operand
// makes a float.
func arith(op string, a, b any, line int) (any, error) {
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	af, aOK := toFloat(a)
	bf, bOK := toFloat(b)
	if !aOK || !bOK {
		return nil, fmt.Errorf("line %d: %s between %s and %s is not supported", line, op, typeName(a), typeName(b))
	}
	if aInt && bInt && op != "/" {
		var r int64
		var overflow bool
		switch op {
		case "+":
			r = ai + bi
			overflow = (r > ai) != (bi > 0)
		case "-":
			r = ai - bi
			overflow = (r < ai) != (bi > 0)
		case "*":
			r = ai * bi
			overflow = ai != 0 && (r/ai != bi || ai == -1 && bi == math.MinInt64)
		default:
			return nil, fmt.Errorf("line %d: operator %s is not supported", line, op)
		}
		if overflow {
			return nil, fmt.Errorf("line %d: integer overflow", line)
		}
		return r, nil
	}
	switch op {
	case "+":
		return af + bf, nil
	case "-":
		return af - bf, nil
	case "*":
		return af * bf, nil
	case "/":
		if bf == 0 {
			return nil, fmt.Errorf("line %d: division by zero", line)
		}
		return af / bf, nil
	}
	return nil, fmt.Errorf("line %d: operator %s is not supported", line, op)
}

// negate applies unary "-" or "+" to an int or float.
func negate(op string, v any) (any, error) {
	switch n := v.(type) {
	case int64:
		if op == "-" && n != math.MinInt64 {
			return -n, nil
		} else if op == "+" {
			return n, nil
		}
	case float64:
		if op == "-" {
			return -n, nil
		} else if op == "+" {
			return n, nil
		}
	}
	return nil, fmt.Errorf("unary %s on %s is not supported", op, typeName(v))
}

// toFloat converts an int64 or float64 (not a bool) to float64.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// typeName is the Python type name of a value.
func typeName(v any) string {
	switch v.(type) {
	case nil, bool, int64, float64, string, []any, *bfcl.Dict:
		return pyval.TypeName(v)
	case bfcl.Ellipsis:
		return "ellipsis"
	case *pySetVal:
		return "set"
	case *object:
		return v.(*object).class.name
	case *class:
		return "type"
	case function, boundMethod, builtin:
		return "function"
	case opaque:
		return "unmodelled value " + v.(opaque).what
	}
	return fmt.Sprintf("%T", v)
}

// nodeName names an expression node for error messages.
func nodeName(x expr) string {
	switch x.(type) {
	case *pyName:
		return "a name"
	case *pyCall:
		return "a call"
	case *pyJoinedStr:
		return "an f-string"
	case *pyComp:
		return "a comprehension"
	case *pyAttribute:
		return "an attribute"
	case *pySubscript:
		return "a subscript"
	}
	return fmt.Sprintf("%T", x)
}
