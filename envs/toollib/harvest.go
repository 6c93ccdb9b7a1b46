package toollib

import (
	"go/scanner"
	"go/token"
	"strings"
)

// Harvest returns the candidate tools of a policy's code snippet or
// program: each top-level func declaration whose doc comment holds at
// least one example line, as ParseTool reads it alone, in source order.
// Statements around the functions are allowed; a function that does not
// parse alone (or code that does not lex into one) yields nothing.
func Harvest(code string) []Tool {
	var out []Tool
	for _, span := range funcSpans(code) {
		start := docStart(code, span[0])
		if start == span[0] {
			continue // no doc comment
		}
		if t, err := ParseTool(code[start:span[1]]); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// funcSpans returns the byte ranges of the top-level func declarations of
// code: from a func keyword that starts a statement at nesting depth 0 to
// the first semicolon (often inserted at a line end) back at depth 0.
func funcSpans(code string) [][2]int {
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(code))
	s.Init(file, []byte(code), nil, 0)
	var spans [][2]int
	depth, atStart, begin := 0, true, -1
	for {
		pos, tok, lit := s.Scan()
		off := file.Offset(pos)
		if tok == token.EOF {
			if begin >= 0 && depth == 0 {
				spans = append(spans, [2]int{begin, len(code)})
			}
			return spans
		}
		if atStart && tok == token.FUNC && depth == 0 {
			begin = off
		}
		atStart = false
		switch tok {
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth = max(depth-1, 0)
		case token.SEMICOLON:
			if depth > 0 {
				break
			}
			atStart = true
			if begin >= 0 {
				end := off
				if lit == ";" {
					end++
				}
				spans = append(spans, [2]int{begin, min(end, len(code))})
				begin = -1
			}
		}
	}
}

// docStart returns the offset of the line comment block that ends on the
// line just above the line holding off, or off when there is none.
func docStart(code string, off int) int {
	lineStart := strings.LastIndexByte(code[:off], '\n') + 1
	if strings.TrimSpace(code[lineStart:off]) != "" {
		return off // something precedes func on its line
	}
	start := off
	for lineStart > 0 {
		prev := strings.LastIndexByte(code[:lineStart-1], '\n') + 1
		if !strings.HasPrefix(strings.TrimSpace(code[prev:lineStart-1]), "//") {
			break
		}
		start, lineStart = prev, prev
	}
	return start
}
