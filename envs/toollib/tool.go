package toollib

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"

	"github.com/artist-rl/artist/envs"
)

// Case is one test of a tool: Expr is a Go expression whose fmt.Println
// output, without its final newline, must equal Want.
type Case struct {
	Expr string `json:"expr"`
	Want string `json:"want"`
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
// an expression that calls the function and WANT is what fmt.Println
// prints for it (6, true, hello, [1 2 3], 2.5).
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
	doc, cases := splitDoc(fd.Doc.Text(), name)
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
func splitDoc(text, name string) (string, []Case) {
	var lines []string
	var cases []Case
	for line := range strings.SplitSeq(text, "\n") {
		if c, ok := parseExample(strings.TrimSpace(line), name); ok {
			cases = append(cases, c)
			continue
		}
		line = strings.TrimRight(line, " \t")
		if line == "" && (len(lines) == 0 || lines[len(lines)-1] == "") {
			continue
		}
		lines = append(lines, line)
	}
	return strings.TrimSpace(strings.Join(lines, "\n")), cases
}

// parseExample reads "EXPR == WANT": the first split at " == " whose left
// side parses as an expression that calls name.
func parseExample(line, name string) (Case, bool) {
	for i := 0; ; {
		j := strings.Index(line[i:], " == ")
		if j < 0 {
			return Case{}, false
		}
		i += j
		expr, want := strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+4:])
		if e, err := parser.ParseExpr(expr); err == nil && calls(e, name) && want != "" {
			return Case{Expr: expr, Want: want}, true
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

// Verify runs every case of t in run: the input is t.Source followed by a
// line that prints the case's expression, and it must end with StatusOK
// and output Want plus a newline. The error names the first failing case
// and what came back (a compile error, a panic, a timeout or the wrong
// output). A tool without cases fails.
func Verify(ctx context.Context, run envs.Tool, t Tool) error {
	if len(t.Cases) == 0 {
		return fmt.Errorf("toollib: verify %s: no cases", t.Name)
	}
	for _, c := range t.Cases {
		r := run.Call(ctx, t.Source+"\nfmt.Println("+c.Expr+")")
		switch {
		case r.Status != envs.StatusOK:
			return fmt.Errorf("toollib: verify %s: case %s: %s: %s", t.Name, c.Expr, r.Status, r.Output)
		case r.Output != c.Want+"\n":
			return fmt.Errorf("toollib: verify %s: case %s: got %q, want %q", t.Name, c.Expr, strings.TrimSuffix(r.Output, "\n"), c.Want)
		}
	}
	return nil
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
