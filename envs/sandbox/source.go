package sandbox

import (
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// allowedPackages are the import paths interpreted code may use: pure
// computation with no access to files, network, processes or the runtime.
var allowedPackages = []string{
	"bytes", "errors", "fmt", "math", "math/big", "math/bits",
	"sort", "strconv", "strings", "unicode",
}

// preImported are imported for snippets that do not import them themselves.
var preImported = []string{"fmt", "math", "strconv", "strings"}

// errGoStatement refuses goroutines: a panic in one would end the host
// process, and one could outlive its call.
var errGoStatement = errors.New("go statements are not allowed")

// deniedImportError names a package outside allowedPackages.
type deniedImportError struct{ path string }

func (e deniedImportError) Error() string {
	return fmt.Sprintf("import %q is not allowed (allowed: %s)",
		e.path, strings.Join(allowedPackages, ", "))
}

// source is a call's input split into the pieces evaluated one after another.
type source struct {
	program bool     // starts with a package clause; evaluated whole
	imports []string // import paths the input names, in order
	chunks  []string // for snippets: each declaration alone, runs of statements together
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
	var src source
	for i, l := range lx {
		switch l.tok {
		case token.GO:
			return source{}, errGoStatement
		case token.IMPORT:
			src.imports = append(src.imports, importPaths(lx[i+1:])...)
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

// importPaths reads the import spec or parenthesised spec list that follows
// an import keyword.
func importPaths(lx []lexeme) []string {
	var paths []string
	grouped := len(lx) > 0 && lx[0].tok == token.LPAREN
	for _, l := range lx {
		switch l.tok {
		case token.STRING:
			if p, err := strconv.Unquote(l.lit); err == nil {
				paths = append(paths, p)
			} else {
				paths = append(paths, l.lit)
			}
			if !grouped {
				return paths
			}
		case token.RPAREN:
			return paths
		case token.SEMICOLON:
			if !grouped {
				return paths
			}
		}
	}
	return paths
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
