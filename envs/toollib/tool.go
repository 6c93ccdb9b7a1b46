package toollib

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// Case is one test of a tool: the value of the Go expression Expr must
// equal the Go value Want, compared as Verify describes. Want holds one
// expression per result of Expr, separated by commas ("3, 1" for a
// function of two results). Tol, when set, is the absolute tolerance of a
// numeric result ("1e-9"); empty compares exactly.
type Case struct {
	Expr string `json:"expr"`
	Want string `json:"want"`
	Tol  string `json:"tol,omitempty"`
}

// Tool is one library function.
type Tool struct {
	Name      string `json:"name"`      // the function's name, a Go identifier
	Doc       string `json:"doc"`       // its doc comment text, example lines removed
	Signature string `json:"signature"` // such as "func gcd(a, b int) int"
	Source    string `json:"source"`    // the declaration, doc comment included, verbatim
	Cases     []Case `json:"cases"`
}

// ParseTool reads one tool from Go source that holds exactly one top-level
// function declaration (not a method) and nothing else but an optional
// package clause. Its doc comment must hold a description and at least one
// example line: a line whose text, trimmed, is EXPR == WANT, where EXPR is
// an expression that calls the function and WANT is its value written in
// Go (6, -2.5, "olleh", 'x', true, nil, []int{1, 2}), optionally followed
// by a tolerance, EXPR == WANT (±TOL). An example line whose WANT is not a
// Go value is an error naming the line.
func ParseTool(src string) (Tool, error) {
	wrapped := src
	if !hasPackageClause(src) {
		wrapped = "package p\n" + src
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", wrapped, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return Tool{}, fmt.Errorf("toollib: parse: %w", err)
	}
	fd, err := onlyFunc(f)
	if err != nil {
		return Tool{}, err
	}
	name := fd.Name.Name
	if err := checkName(name); err != nil {
		return Tool{}, err
	}
	if fd.Body == nil {
		return Tool{}, fmt.Errorf("toollib: func %s has no body", name)
	}
	if fd.Doc == nil {
		return Tool{}, fmt.Errorf("toollib: func %s has no doc comment", name)
	}
	doc, cases, err := splitDoc(fd.Doc.Text(), name)
	if err != nil {
		return Tool{}, fmt.Errorf("toollib: func %s: %w", name, err)
	}
	if doc == "" {
		return Tool{}, fmt.Errorf("toollib: func %s: doc comment has no description", name)
	}
	if len(cases) == 0 {
		return Tool{}, fmt.Errorf("toollib: func %s: doc comment has no example line such as %q", name, "//\t"+name+"(...) == WANT")
	}
	sig, err := signature(fset, fd)
	if err != nil {
		return Tool{}, err
	}
	start, end := fset.Position(fd.Doc.Pos()).Offset, fset.Position(fd.End()).Offset
	return Tool{Name: name, Doc: doc, Signature: sig, Source: wrapped[start:end], Cases: cases}, nil
}

// onlyFunc returns the single declaration of f, which must be a function.
func onlyFunc(f *ast.File) (*ast.FuncDecl, error) {
	var funcs []*ast.FuncDecl
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			return nil, errors.New("toollib: a tool holds one func declaration and no other declarations or imports (fmt, math, strconv and strings are pre-imported)")
		}
		if fd.Recv != nil {
			return nil, fmt.Errorf("toollib: %s is a method; a tool is a plain func", fd.Name.Name)
		}
		funcs = append(funcs, fd)
	}
	switch len(funcs) {
	case 0:
		return nil, errors.New("toollib: no func declaration")
	case 1:
		return funcs[0], nil
	}
	return nil, fmt.Errorf("toollib: %d func declarations; a tool holds exactly one", len(funcs))
}

// checkName rejects names that are not identifiers or that a snippet
// cannot redeclare as a plain function.
func checkName(name string) error {
	switch {
	case !token.IsIdentifier(name):
		return fmt.Errorf("toollib: name %q is not a valid Go identifier", name)
	case name == "_" || name == "main" || name == "init":
		return fmt.Errorf("toollib: name %q is reserved", name)
	}
	return nil
}

// splitDoc separates doc comment text into the description (example lines
// removed, blank-line runs collapsed) and the example cases.
func splitDoc(text, name string) (string, []Case, error) {
	var lines []string
	var cases []Case
	for line := range strings.SplitSeq(text, "\n") {
		c, ok, err := parseExample(strings.TrimSpace(line), name)
		if err != nil {
			return "", nil, err
		}
		if ok {
			cases = append(cases, c)
			continue
		}
		line = strings.TrimRight(line, " \t")
		if line == "" && (len(lines) == 0 || lines[len(lines)-1] == "") {
			continue
		}
		lines = append(lines, line)
	}
	return strings.TrimSpace(strings.Join(lines, "\n")), cases, nil
}

// parseExample reads "EXPR == WANT": the first split at " == " whose left
// side parses as an expression that calls name and whose right side is a
// valid WANT (see parseWant). A line with such a left side but no valid
// right side is an error; any other line is not an example.
func parseExample(line, name string) (Case, bool, error) {
	var firstErr error
	for i := 0; ; {
		j := strings.Index(line[i:], " == ")
		if j < 0 {
			if firstErr != nil {
				return Case{}, false, fmt.Errorf("example %q: %w", line, firstErr)
			}
			return Case{}, false, nil
		}
		i += j
		expr, want := strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+4:])
		if e, err := parser.ParseExpr(expr); err == nil && calls(e, name) {
			c, err := parseWant(want, name)
			if err == nil {
				c.Expr = expr
				return c, true, nil
			}
			firstErr = cmp.Or(firstErr, err)
		}
		i += 4
	}
}

// calls reports whether e calls the function name.
func calls(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(c.Fun).(*ast.Ident); ok && id.Name == name {
				found = true
			}
			if ix, ok := c.Fun.(*ast.IndexExpr); ok { // generic instantiation f[int](...)
				if id, ok := ix.X.(*ast.Ident); ok && id.Name == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// signature prints the declaration without doc comment and body.
func signature(fset *token.FileSet, fd *ast.FuncDecl) (string, error) {
	head := &ast.FuncDecl{Name: fd.Name, Type: fd.Type}
	var b bytes.Buffer
	if err := format.Node(&b, fset, head); err != nil {
		return "", fmt.Errorf("toollib: print signature of %s: %w", fd.Name.Name, err)
	}
	return strings.Join(strings.Fields(b.String()), " "), nil
}

// hasPackageClause reports whether src starts with a package clause, as
// the sandbox decides between a program and a snippet.
func hasPackageClause(src string) bool {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", -1, len(src)), []byte(src), nil, 0)
	_, tok, _ := s.Scan()
	return tok == token.PACKAGE
}

// Prelude is the source of tools joined by blank lines, to prepend to a
// snippet; "" for none.
func Prelude(tools []Tool) string {
	srcs := make([]string, len(tools))
	for i, t := range tools {
		srcs[i] = strings.TrimSpace(t.Source)
	}
	return strings.Join(srcs, "\n\n")
}

// Listing is one line per tool, "signature // first sentence of doc", for
// prompts.
func Listing(tools []Tool) string {
	var b strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&b, "%s // %s\n", t.Signature, firstSentence(t.Doc))
	}
	return b.String()
}

// firstSentence returns the first paragraph of doc on one line, cut after
// the first period that a space follows.
func firstSentence(doc string) string {
	para, _, _ := strings.Cut(doc, "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	if i := strings.Index(para, ". "); i >= 0 {
		return para[:i+1]
	}
	return para
}
