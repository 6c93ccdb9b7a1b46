// Package doccheck checks the project's Markdown against the code it
// describes: code fences that CommonMark reads as the writer meant,
// relative links and anchors that resolve, commands that cmd/artist has
// and paths under configs/, scripts/ and deploy/ that exist.
//
// Files are parsed with goldmark, a CommonMark parser, so a fence is
// judged as a renderer sees it: a closing fence with text after it is no
// closing fence, and the code block runs on past it.
package doccheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	mdast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Problem is one finding in a Markdown file, at a 1-based line.
type Problem struct {
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Msg) }

// Doc is a parsed Markdown file.
type Doc struct {
	src  []byte
	root mdast.Node
}

// Parse parses src as CommonMark.
func Parse(src []byte) *Doc {
	return &Doc{src: src, root: goldmark.DefaultParser().Parse(text.NewReader(src))}
}

// Render renders the file to HTML, as a viewer would.
func (d *Doc) Render() ([]byte, error) {
	var b bytes.Buffer
	err := goldmark.DefaultRenderer().Render(&b, d.src, d.root)
	return b.Bytes(), err
}

// line returns the 1-based line of byte offset off.
func (d *Doc) line(off int) int {
	if off < 0 {
		return 0
	}
	return bytes.Count(d.src[:min(off, len(d.src))], []byte("\n")) + 1
}

// lineAt returns the line of src that starts at off, without its newline,
// and the offset of the next line.
func (d *Doc) lineAt(off int) ([]byte, int) {
	rest := d.src[off:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		return rest[:i], off + i + 1
	}
	return rest, len(d.src)
}

// lineStart returns the offset of the start of the line holding off.
func (d *Doc) lineStart(off int) int {
	return bytes.LastIndexByte(d.src[:off], '\n') + 1
}

// Fences reports fenced code blocks that a writer did not mean: a block
// that no closing fence ends (it runs to the end of the file or of its
// container), a fence line inside a block with text after it (CommonMark
// reads it as content, not as the closing fence), and an opening fence
// whose info string is more than one word (the usual sign of text after
// a closing fence that opened a block instead).
func (d *Doc) Fences() []Problem {
	var out []Problem
	walk(d.root, func(n mdast.Node) {
		b, ok := n.(*mdast.FencedCodeBlock)
		if !ok || b.Pos() < 0 {
			return
		}
		open, next := d.lineAt(d.lineStart(b.Pos()))
		openLine := d.line(b.Pos())
		fence := fenceOf(open)
		if fence == "" {
			return
		}
		if b.Info != nil {
			if info := strings.TrimSpace(string(b.Info.Segment.Value(d.src))); strings.ContainsFunc(info, unicode.IsSpace) {
				out = append(out, Problem{openLine, fmt.Sprintf("code fence opens with the text %q after it: is it a closing fence followed by text? Put the text on a line of its own", info)})
			}
		}
		lines := b.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			content := bytes.TrimRight(seg.Value(d.src), "\r\n")
			if f := fenceOf(content); f != "" && f[0] == fence[0] && len(f) >= len(fence) {
				if rest := strings.TrimSpace(string(bytes.TrimLeft(content, " \t")[len(f):])); rest != "" {
					out = append(out, Problem{d.line(seg.Start), fmt.Sprintf("fence %s with text after it (%q) is content, not the closing fence of the block opened at line %d: put the text on a line of its own, or close the block before it", f, rest, openLine)})
				}
			}
			next = d.lineStart(seg.Start)
			_, next = d.lineAt(next)
		}
		if next >= len(d.src) {
			out = append(out, Problem{openLine, fmt.Sprintf("code block opened with %s is never closed: it runs to the end of the file", fence)})
			return
		}
		closing, _ := d.lineAt(next)
		if f := fenceOf(closing); f == "" || f[0] != fence[0] || len(f) < len(fence) || strings.TrimSpace(string(bytes.TrimLeft(closing, " \t>")[len(f):])) != "" {
			out = append(out, Problem{openLine, fmt.Sprintf("code block opened with %s has no closing fence: it ends with its container at line %d", fence, d.line(next))})
		}
	})
	return out
}

// fenceOf returns the run of backticks or tildes (at least 3) that line
// starts with after its indentation and blockquote markers, or "".
func fenceOf(line []byte) string {
	s := strings.TrimLeft(string(line), " \t>")
	if s == "" || s[0] != '`' && s[0] != '~' {
		return ""
	}
	n := len(s) - len(strings.TrimLeft(s, s[:1]))
	if n < 3 {
		return ""
	}
	return s[:n]
}

// Link is a link or image destination and its line.
type Link struct {
	Dest string
	Line int
}

// Links returns the destinations of the file's links and images.
func (d *Doc) Links() []Link {
	var out []Link
	walk(d.root, func(n mdast.Node) {
		switch l := n.(type) {
		case *mdast.Link:
			out = append(out, Link{string(l.Destination), d.nodeLine(n)})
		case *mdast.Image:
			out = append(out, Link{string(l.Destination), d.nodeLine(n)})
		}
	})
	return out
}

// nodeLine is the line of n, or of its nearest block with a position.
func (d *Doc) nodeLine(n mdast.Node) int {
	for ; n != nil; n = n.Parent() {
		if n.Pos() >= 0 {
			return d.line(n.Pos())
		}
		if n.Type() == mdast.TypeBlock && n.Lines().Len() > 0 {
			return d.line(n.Lines().At(0).Start)
		}
	}
	return 0
}

// Anchors returns the fragment ids GitHub gives the file's headings.
func (d *Doc) Anchors() map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	walk(d.root, func(n mdast.Node) {
		if _, ok := n.(*mdast.Heading); !ok {
			return
		}
		slug := Slug(d.plain(n))
		id := slug
		if k := seen[slug]; k > 0 {
			id = fmt.Sprintf("%s-%d", slug, k)
		}
		seen[slug]++
		ids[id] = true
	})
	return ids
}

// plain is the text of n's inline children.
func (d *Doc) plain(n mdast.Node) string {
	var b strings.Builder
	walk(n, func(c mdast.Node) {
		switch t := c.(type) {
		case *mdast.Text:
			b.Write(t.Segment.Value(d.src))
		case *mdast.String:
			b.Write(t.Value)
		}
	})
	return b.String()
}

// Slug is GitHub's anchor for a heading's text: lower case, spaces to
// hyphens, and every character but letters, digits, hyphens and
// underscores dropped.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-', r == '_', unicode.IsLetter(r), unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code is the text of a code span or code block and its line.
type Code struct {
	Text string
	Line int
}

// Code returns the file's code spans and code blocks.
func (d *Doc) Code() []Code {
	var out []Code
	walk(d.root, func(n mdast.Node) {
		switch n.(type) {
		case *mdast.CodeSpan:
			out = append(out, Code{d.plain(n), d.nodeLine(n)})
		case *mdast.FencedCodeBlock, *mdast.CodeBlock:
			var b strings.Builder
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				b.Write(seg.Value(d.src))
			}
			out = append(out, Code{b.String(), d.nodeLine(n)})
		}
	})
	return out
}

// walk calls f on n and every node below it, in document order.
func walk(n mdast.Node, f func(mdast.Node)) {
	_ = mdast.Walk(n, func(c mdast.Node, entering bool) (mdast.WalkStatus, error) {
		if entering {
			f(c)
		}
		return mdast.WalkContinue, nil
	})
}

// commandRe matches the command word after artist: ./artist train,
// go run ./cmd/artist eval, mpirun -np 2 artist train.
var commandRe = regexp.MustCompile(`(?:^|[\s/(])artist[ \t]+([a-z][a-z0-9-]*)`)

// Commands returns the artist subcommands that code names.
func Commands(code string) []string {
	var out []string
	for _, m := range commandRe.FindAllStringSubmatch(code, -1) {
		out = append(out, m[1])
	}
	return out
}

// pathRe matches paths under configs/, scripts/ and deploy/ that are not
// part of a longer path or address.
var pathRe = regexp.MustCompile(`(?:^|[^\w/.~-])((?:configs|scripts|deploy)/[\w.-]+(?:/[\w.-]+)*)`)

// RepoPaths returns the paths under configs/, scripts/ and deploy/ that
// text names, without a sentence's final full stop.
func RepoPaths(text string) []string {
	var out []string
	for _, m := range pathRe.FindAllStringSubmatch(text, -1) {
		if p := strings.TrimRight(m[1], "."); strings.ContainsAny(p[strings.IndexByte(p, '/')+1:], "abcdefghijklmnopqrstuvwxyz0123456789") {
			out = append(out, p)
		}
	}
	return out
}

// Subcommands returns the names in the commands table of the command
// package in dir (cmd/artist): the first string of each element of
// `var commands = []command{...}`.
func Subcommands(dir string) ([]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("doccheck: %w", err)
		}
		names = append(names, tableNames(f)...)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("doccheck: no `var commands = []command{{\"name\", ...}, ...}` table in %s: update Subcommands to where the subcommands are listed now", dir)
	}
	sort.Strings(names)
	return slices.Compact(names), nil
}

// tableNames returns the first string of each element of f's commands
// table.
func tableNames(f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			for i, id := range v.Names {
				if id.Name != "commands" || i >= len(v.Values) {
					continue
				}
				table, ok := v.Values[i].(*ast.CompositeLit)
				if !ok {
					continue
				}
				for _, e := range table.Elts {
					if name, ok := firstString(e); ok {
						names = append(names, name)
					}
				}
			}
		}
	}
	return names
}

// firstString returns the first field of a table element, written
// positionally or as name: "...".
func firstString(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.CompositeLit)
	if !ok || len(lit.Elts) == 0 {
		return "", false
	}
	first := lit.Elts[0]
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "name" {
				first = kv.Value
			}
		}
	}
	s, ok := first.(*ast.BasicLit)
	if !ok || s.Kind != token.STRING {
		return "", false
	}
	name, err := strconv.Unquote(s.Value)
	return name, err == nil
}

// Check runs every check on the Markdown file at path (relative to
// root, the module root): fences, relative links and their anchors,
// artist commands against cmds, and configs/, scripts/ and deploy/ paths.
func Check(root, path string, cmds []string) ([]Problem, error) {
	src, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return nil, err
	}
	d := Parse(src)
	if _, err := d.Render(); err != nil {
		return nil, fmt.Errorf("doccheck: render %s: %w", path, err)
	}
	out := d.Fences()
	for _, l := range d.Links() {
		if p := checkLink(root, path, d, l); p != "" {
			out = append(out, Problem{l.Line, p})
		}
	}
	for _, c := range d.Code() {
		for _, name := range Commands(c.Text) {
			if !slices.Contains(cmds, name) {
				out = append(out, Problem{c.Line, fmt.Sprintf("artist %s: cmd/artist has no command %q (it has %s)", name, name, strings.Join(cmds, ", "))})
			}
		}
	}
	for _, p := range RepoPaths(string(src)) {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			out = append(out, Problem{lineOf(src, p), fmt.Sprintf("%s does not exist", p)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out, nil
}

// lineOf is the line where s first occurs in src.
func lineOf(src []byte, s string) int {
	return bytes.Count(src[:max(0, bytes.Index(src, []byte(s)))], []byte("\n")) + 1
}

// checkLink returns what is wrong with link l of the file at path, or ""
// for a link that resolves or points off the repository.
func checkLink(root, path string, d *Doc, l Link) string {
	dest := l.Dest
	if dest == "" {
		return "empty link"
	}
	if strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") {
		return ""
	}
	file, frag, _ := strings.Cut(dest, "#")
	anchors := d.Anchors()
	if file != "" {
		target := filepath.Join(root, filepath.Dir(path), filepath.FromSlash(file))
		if _, err := os.Stat(target); err != nil {
			return fmt.Sprintf("link %s: %s does not exist (relative links start at the folder of %s)", dest, filepath.ToSlash(filepath.Join(filepath.Dir(path), file)), path)
		}
		if frag == "" || !strings.HasSuffix(file, ".md") {
			return ""
		}
		src, err := os.ReadFile(target)
		if err != nil {
			return fmt.Sprintf("link %s: %v", dest, err)
		}
		anchors = Parse(src).Anchors()
	}
	if frag != "" && !anchors[frag] {
		return fmt.Sprintf("link %s: no heading has the anchor #%s", dest, frag)
	}
	return ""
}
