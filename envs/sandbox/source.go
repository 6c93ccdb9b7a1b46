package sandbox

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// allowedPackages are the import paths interpreted code may use: pure
// computation with no access to files, network, processes or the runtime.
var allowedPackages = []string{
	"bytes", "container/heap", "container/list", "container/ring", "errors",
	"fmt", "math", "math/big", "math/bits", "math/cmplx", "regexp", "sort",
	"strconv", "strings", "unicode", "unicode/utf8",
}

// preImported are imported for snippets that do not import them themselves.
var preImported = []string{"fmt", "math", "strconv", "strings"}

// errGoStatement refuses goroutines: one could outlive its call, and a
// program that computes an answer has no need of them.
var errGoStatement = errors.New("go statements are not allowed")

// deniedImportError names a package outside allowedPackages.
type deniedImportError struct{ path string }

func (e deniedImportError) Error() string {
	return fmt.Sprintf("import %q is not allowed (allowed: %s)",
		e.path, strings.Join(allowedPackages, ", "))
}

// source is a call's input split into the pieces evaluated one after another.
type source struct {
	input   string
	program bool         // starts with a package clause; evaluated whole
	imports []string     // import paths the input names, in order
	decls   []importDecl // the import declarations
	chunks  []string     // for snippets: each declaration alone, runs of statements together
}

// importDecl is one import declaration: its byte range in the input and the
// specs it holds.
type importDecl struct {
	start, end int
	specs      []importSpec
}

// importSpec is one imported package and the name it is imported as ("" for
// the package's own name, "_" or ".").
type importSpec struct{ name, path string }

// binds returns the name the spec binds in the file scope, or "" for blank
// and dot imports. The whitelisted packages are named after the last
// element of their path.
func (sp importSpec) binds() string {
	switch sp.name {
	case "_", ".":
		return ""
	case "":
		return path.Base(sp.path)
	}
	return sp.name
}

// String returns the spec as Go source.
func (sp importSpec) String() string {
	if sp.name == "" {
		return strconv.Quote(sp.path)
	}
	return sp.name + " " + strconv.Quote(sp.path)
}

// lexeme is one token of the input and its byte offset.
type lexeme struct {
	off int
	tok token.Token
	lit string
}

// parseSource splits input into chunks and checks its imports and go
// statements. Syntax errors are left for the interpreter to report.
func parseSource(input string) (source, error) {
	lx := lex(input)
	src := source{input: input}
	for i, l := range lx {
		switch l.tok {
		case token.GO:
			return source{}, errGoStatement
		case token.IMPORT:
			d := parseImport(lx[i:])
			src.decls = append(src.decls, d)
			for _, sp := range d.specs {
				src.imports = append(src.imports, sp.path)
			}
		}
	}
	for _, p := range src.imports {
		if !slices.Contains(allowedPackages, p) {
			return source{}, deniedImportError{path: p}
		}
	}
	if len(lx) > 0 && lx[0].tok == token.PACKAGE {
		src.program = true
		src.chunks = []string{input}
		return src, nil
	}
	src.chunks = chunks(input, lx)
	return src, nil
}

// lex returns the tokens of input, comments skipped.
func lex(input string) []lexeme {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(input))
	var s scanner.Scanner
	s.Init(file, []byte(input), func(token.Position, string) {}, 0)
	var lx []lexeme
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return lx
		}
		lx = append(lx, lexeme{off: file.Offset(pos), tok: tok, lit: lit})
	}
}

// parseImport reads the import declaration that starts at lx[0]: one spec
// or a parenthesised list. A declaration cut short ends at the input's end.
func parseImport(lx []lexeme) importDecl {
	d := importDecl{start: lx[0].off, end: lx[0].off + len("import")}
	grouped := len(lx) > 1 && lx[1].tok == token.LPAREN
	name := ""
	for _, l := range lx[1:] {
		switch l.tok {
		case token.IDENT:
			name = l.lit
		case token.PERIOD:
			name = "."
		case token.STRING:
			p, err := strconv.Unquote(l.lit)
			if err != nil {
				p = l.lit
			}
			d.specs = append(d.specs, importSpec{name: name, path: p})
			d.end, name = l.off+len(l.lit), ""
			if !grouped {
				return d
			}
		case token.RPAREN:
			d.end = l.off + 1
			return d
		case token.SEMICOLON:
			if !grouped {
				return d
			}
		}
	}
	return d
}

// withoutBound returns src without the import specs whose name bound already
// holds for the same path (an interpreter refuses to import a package
// twice under one name), and true when it dropped any.
func (src source) withoutBound(bound map[string]string) (source, bool) {
	var b strings.Builder
	last := 0
	for _, d := range src.decls {
		var keep []string
		for _, sp := range d.specs {
			if n := sp.binds(); n == "" || bound[n] != sp.path {
				keep = append(keep, sp.String())
			}
		}
		if len(keep) == len(d.specs) {
			continue
		}
		b.WriteString(src.input[last:d.start])
		if len(keep) > 0 {
			b.WriteString("import (" + strings.Join(keep, "; ") + ")")
		}
		last = d.end
	}
	if last == 0 {
		return src, false
	}
	b.WriteString(src.input[last:])
	out, err := parseSource(b.String())
	if err != nil { // cannot happen: only imports were removed
		return src, false
	}
	return out, true
}

// chunks splits a snippet at top-level statement boundaries. The interpreter
// evaluates one input either as declarations or as statements, so each
// import, func and type declaration becomes its own chunk and consecutive
// statements are joined into one. A statement run that starts with var or
// const gets a leading semicolon so that it is read as statements.
func chunks(input string, lx []lexeme) []string {
	type item struct {
		start int
		decl  bool
		first token.Token
	}
	var items []item
	depth, atStart := 0, true
	for _, l := range lx {
		if atStart && l.tok != token.SEMICOLON {
			decl := l.tok == token.IMPORT || l.tok == token.FUNC || l.tok == token.TYPE
			if decl || len(items) == 0 || items[len(items)-1].decl {
				items = append(items, item{start: l.off, decl: decl, first: l.tok})
			}
			atStart = false
		}
		switch l.tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth = max(depth-1, 0)
		case token.SEMICOLON:
			atStart = depth == 0
		}
	}
	out := make([]string, len(items))
	for i, it := range items {
		end := len(input)
		if i+1 < len(items) {
			end = items[i+1].start
		}
		out[i] = input[it.start:end]
		if !it.decl && (it.first == token.VAR || it.first == token.CONST) {
			out[i] = ";" + out[i]
		}
	}
	return out
}

// preImports returns the import declaration for the pre-imported packages a
// snippet does not import itself, or "" when there are none.
func preImports(own []string) string {
	var q []string
	for _, p := range preImported {
		if !slices.Contains(own, p) {
			q = append(q, strconv.Quote(p))
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "import (" + strings.Join(q, "; ") + ")"
}
