package main

import (
	"errors"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
)

// syntaxPosition returns where the Go source the sandbox refused first
// fails to parse, in the input's own lines and columns. The sandbox takes
// whole programs (package main ...) and snippets of declarations and
// statements; a snippet is parsed both as top-level declarations and as a
// function body, and when neither parses, the reading that gets further
// names the position. ok is false when the source parses one way (the
// error was not a syntax error).
func syntaxPosition(src string) (pos token.Position, ok bool) {
	if strings.HasPrefix(strings.TrimSpace(src), "package") {
		return firstError(src, 0)
	}
	src = blankImports(src) // a snippet may import anywhere, as the sandbox allows
	decls, okD := firstError("package p\n"+src, 1)
	body, okB := firstError("package p\nfunc _() {\n"+src+"\n}", 2)
	switch {
	case !okD || !okB:
		return token.Position{}, false
	case body.Line > decls.Line || (body.Line == decls.Line && body.Column > decls.Column):
		return body, true
	default:
		return decls, true
	}
}

// firstError parses src as a file and returns its first syntax error's
// position, less skip lines of wrapping; ok is false when src parses.
func firstError(src string, skip int) (token.Position, bool) {
	_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.AllErrors)
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return token.Position{}, false
	}
	p := list[0].Pos
	p.Line -= skip
	if p.Line < 1 {
		p.Line, p.Column = 1, 1
	}
	return p, true
}

// blankImports replaces every import declaration of src with spaces,
// keeping its line breaks, so that positions after it stay where they were.
func blankImports(src string) string {
	b := []byte(src)
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(b))
	var s scanner.Scanner
	s.Init(file, b, nil, 0)
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			return string(b)
		}
		if tok != token.IMPORT {
			continue
		}
		start, end, depth := file.Offset(pos), len(b), 0
		for {
			p, t, lit := s.Scan()
			if t == token.EOF || (t == token.SEMICOLON && lit == "\n" && depth == 0) {
				end = file.Offset(p)
				break
			}
			if t == token.LPAREN {
				depth++
			} else if t == token.RPAREN {
				depth--
			}
		}
		for i := start; i < end && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
}
