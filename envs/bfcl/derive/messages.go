package derive

import (
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs/bfcl"
)

// Messages lists the fixed and templated message texts of each public
// method (name not starting with "_") of class in the Python module src.
// The result maps "Class.method" to a list of [key, text] pairs, in the
// order of Python's ast.walk over the method (breadth first), without
// repeats; methods with no texts are left out. Texts come from:
//
//   - return {"k": text, ...} and x = {"k": text, ...}: key "k";
//   - return [{"k": text}, ...]: key "list:k"; return [text, ...]: key "list";
//   - return text: key "return";
//   - x["k"] = text: key "k";
//   - raise E(text, ...): key "raise".
//
// A text is a str constant, an f-string, or a + of them with other
// operands. In the template a name or attribute x (or self.x) becomes
// "{x}" and any other operand or field "{…}"; format specs are dropped.
func Messages(src, class string) (*bfcl.Dict, error) {
	mod, err := parseModule(src)
	if err != nil {
		return nil, fmt.Errorf("derive: %w", err)
	}
	c := findClass(mod, class)
	if c == nil {
		return nil, fmt.Errorf("derive: no class %s", class)
	}
	return classMessages(c), nil
}

func classMessages(c *pyClassDef) *bfcl.Dict {
	out := bfcl.NewDict()
	for _, s := range c.Body {
		f, ok := s.(*pyFuncDef)
		if !ok || strings.HasPrefix(f.Name, "_") {
			continue
		}
		var pairs [][2]string
		walkStmts(f, func(s stmt) { pairs = append(pairs, stmtMessages(s)...) })
		var list []any
		seen := map[[2]string]bool{}
		for _, p := range pairs {
			if !seen[p] {
				seen[p] = true
				list = append(list, []any{p[0], p[1]})
			}
		}
		if len(list) > 0 {
			out.Set(c.Name+"."+f.Name, list)
		}
	}
	return out
}

// walkStmts calls visit on root and the statements under it in the order
// Python's ast.walk meets them: breadth first, children in field order,
// an except clause counting as one level between a try and its body.
// Expressions hold no statements, so skipping them keeps the order.
func walkStmts(root stmt, visit func(stmt)) {
	queue := []stmt{root}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		visit(s)
		switch s := s.(type) {
		case *pyFuncDef:
			queue = append(queue, s.Body...)
		case *pyClassDef:
			queue = append(queue, s.Body...)
		case *pyIf:
			queue = append(append(queue, s.Body...), s.Else...)
		case *pyFor:
			queue = append(append(queue, s.Body...), s.Else...)
		case *pyWhile:
			queue = append(append(queue, s.Body...), s.Else...)
		case *pyWith:
			queue = append(queue, s.Body...)
		case *pyTry:
			queue = append(queue, s.Body...)
			for _, h := range s.Handlers {
				queue = append(queue, h)
			}
			queue = append(append(queue, s.Else...), s.Final...)
		case *pyHandler:
			queue = append(queue, s.Body...)
		}
	}
}

// stmtMessages returns the [key, text] pairs one statement contributes.
func stmtMessages(s stmt) [][2]string {
	var out [][2]string
	switch s := s.(type) {
	case *pyReturn:
		switch v := s.Value.(type) {
		case nil:
		case *pyDict:
			out = dictMessages(v, "")
		case *pyList:
			for _, e := range v.Elts {
				if d, ok := e.(*pyDict); ok {
					out = append(out, dictMessages(d, "list:")...)
				} else if isText(e) {
					out = append(out, [2]string{"list", template(e)})
				}
			}
		default:
			if isText(v) {
				out = append(out, [2]string{"return", template(v)})
			}
		}
	case *pyAssign:
		out = assignMessages(s.Targets, s.Value)
	case *pyAnnAssign:
		if s.Value != nil {
			out = assignMessages([]expr{s.Target}, s.Value)
		}
	case *pyRaise:
		if c, ok := s.Exc.(*pyCall); ok && len(c.Args) > 0 && isText(c.Args[0]) {
			out = append(out, [2]string{"raise", template(c.Args[0])})
		}
	}
	return out
}

func assignMessages(targets []expr, value expr) [][2]string {
	var out [][2]string
	if d, ok := value.(*pyDict); ok {
		out = dictMessages(d, "")
	}
	for _, t := range targets {
		sub, ok := t.(*pySubscript)
		if !ok {
			continue
		}
		if k, ok := constString(sub.Index); ok && isText(value) {
			out = append(out, [2]string{k, template(value)})
		}
	}
	return out
}

// dictMessages returns the entries of a dict display whose key is a str
// constant and whose value is a text.
func dictMessages(d *pyDict, prefix string) [][2]string {
	var out [][2]string
	for i, kx := range d.Keys {
		if k, ok := constString(kx); ok && isText(d.Values[i]) {
			out = append(out, [2]string{prefix + k, template(d.Values[i])})
		}
	}
	return out
}

func constString(x expr) (string, bool) {
	c, ok := x.(*pyConst)
	if !ok {
		return "", false
	}
	s, ok := c.Value.(string)
	return s, ok
}

// isText reports whether x builds a str from literal text: a str constant,
// an f-string, or a + with such an operand.
func isText(x expr) bool {
	switch x := x.(type) {
	case *pyConst:
		_, ok := x.Value.(string)
		return ok
	case *pyJoinedStr:
		return true
	case *pyBinOp:
		return x.Op == "+" && (isText(x.L) || isText(x.R))
	}
	return false
}

// template renders a text expression with its variable parts as {name} or
// {…}.
func template(x expr) string {
	switch x := x.(type) {
	case *pyConst:
		if s, ok := x.Value.(string); ok {
			return s
		}
	case *pyJoinedStr:
		var b strings.Builder
		for _, p := range x.Parts {
			b.WriteString(template(p))
		}
		return b.String()
	case *pyFormattedValue:
		return template(x.Value)
	case *pyBinOp:
		if isText(x) {
			return template(x.L) + template(x.R)
		}
	case *pyName:
		return "{" + x.ID + "}"
	case *pyAttribute:
		return "{" + x.Attr + "}"
	}
	return "{…}"
}

// findClass returns the top-level class called name, or nil.
func findClass(mod []stmt, name string) *pyClassDef {
	for _, s := range mod {
		if c, ok := s.(*pyClassDef); ok && c.Name == name {
			return c
		}
	}
	return nil
}

// findMethod returns the method called name of c, or nil.
func findMethod(c *pyClassDef, name string) *pyFuncDef {
	for _, s := range c.Body {
		if f, ok := s.(*pyFuncDef); ok && f.Name == name {
			return f
		}
	}
	return nil
}
