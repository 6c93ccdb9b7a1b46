// Package archgraph reads the import graph of the module's own packages
// from its source tree, renders it grouped by layer, and checks it
// against layering rules, so that what docs/ARCHITECTURE.md says about
// dependencies is tested rather than only written.
//
// The graph is read with go/parser from every non-test .go file under the
// module root, whatever its build constraints, so it is the union over
// all platforms and the same on every machine; testdata folders and
// folders whose names start with "." or "_" are skipped, as the go
// command skips them. Packages are named by their path below the module
// root ("rollout/format"; "." for the root itself), and only imports of
// the module's own packages are kept.
//
// The project's layers and rules are Layers and Rules; the test of this
// package compares Render's text with the block of docs/ARCHITECTURE.md
// between BeginMarker and EndMarker and applies the rules.
package archgraph

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Graph maps each package of the module (by its path below the module
// root) to the module's packages it imports, sorted, without duplicates.
// A package that imports none of them maps to an empty slice.
type Graph map[string][]string

// ModulePath returns the module path that root's go.mod declares.
func ModulePath(root string) (string, error) {
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("archgraph: %s/go.mod declares no module", root)
}

// Load reads the import graph of the module rooted at root (the folder
// of its go.mod). Test files are left out, and so is a folder that holds
// no other .go file. A file that does not parse is an error naming it.
func Load(root string) (Graph, error) {
	mod, err := ModulePath(root)
	if err != nil {
		return nil, err
	}
	g := Graph{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("archgraph: %w", err)
		}
		pkg := filepath.ToSlash(rel)
		deps := g[pkg]
		if deps == nil {
			deps = []string{}
		}
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return fmt.Errorf("archgraph: %s: %w", p, err)
			}
			if dep, ok := strings.CutPrefix(ip, mod+"/"); ok {
				deps = append(deps, dep)
			}
		}
		g[pkg] = deps
		return nil
	})
	if err != nil {
		return nil, err
	}
	for pkg, deps := range g {
		slices.Sort(deps)
		g[pkg] = slices.Compact(deps)
	}
	return g, nil
}

// Packages returns the graph's packages, sorted.
func (g Graph) Packages() []string {
	out := make([]string, 0, len(g))
	for p := range g {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Match reports whether package p matches pattern: "..." matches every
// package, "x/..." matches x and every package below it, and any other
// pattern matches the package of that path only.
func Match(pattern, p string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return pattern == p
}

// matchAny reports whether p matches one of patterns.
func matchAny(patterns []string, p string) bool {
	return slices.ContainsFunc(patterns, func(pat string) bool { return Match(pat, p) })
}

// Layer is a named group of packages. In a list of layers, a package
// belongs to the first layer one of whose patterns (as Match reads
// them) matches it.
type Layer struct {
	Name     string
	Packages []string
}

// LayerOf returns the index in layers of the layer p belongs to, or -1.
func LayerOf(layers []Layer, p string) int {
	return slices.IndexFunc(layers, func(l Layer) bool { return matchAny(l.Packages, p) })
}

// Render writes the graph as text, layer by layer in the order given: a
// "# name" line per layer, then one line per package of the layer,
// sorted, of the form "pkg: dep dep ..." ("pkg:" for a package that
// imports none of the module's), wrapped before width columns with the
// continuation indented. Packages in no layer come last, under
// "# unplaced".
func (g Graph) Render(layers []Layer, width int) string {
	groups := make([][]string, len(layers)+1)
	for _, p := range g.Packages() {
		i := LayerOf(layers, p)
		if i < 0 {
			i = len(layers)
		}
		groups[i] = append(groups[i], p)
	}
	var b strings.Builder
	for i, pkgs := range groups {
		if len(pkgs) == 0 {
			continue
		}
		name := "unplaced"
		if i < len(layers) {
			name = layers[i].Name
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s\n", name)
		for _, p := range pkgs {
			b.WriteString(wrap(p+":", g[p], width))
		}
	}
	return b.String()
}

// wrap writes head followed by words, a space before each, in lines of
// at most width columns where the words allow (a line always holds at
// least one word), continuation lines indented by four spaces.
func wrap(head string, words []string, width int) string {
	var b strings.Builder
	line, fresh := head, true
	for _, w := range words {
		if !fresh && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = "   "
		}
		line += " " + w
		fresh = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Rule forbids imports: no package matching From and not matching
// NotFrom imports a package matching To and not matching NotTo (patterns
// as Match reads them). A package's imports of itself are never checked.
type Rule struct {
	// Doc is the rule as the documentation states it.
	Doc           string
	From, NotFrom []string
	To, NotTo     []string
}

// Violation is one import a rule forbids.
type Violation struct {
	Rule     string // the rule's Doc
	From, To string
}

func (v Violation) String() string {
	if v.From == "" {
		return fmt.Sprintf("%s: breaks %q", v.To, v.Rule)
	}
	return fmt.Sprintf("%s imports %s: breaks %q", v.From, v.To, v.Rule)
}

// Check returns the imports of g that rules forbid, in the order of the
// rules, then of the importing packages, then of their imports.
func (g Graph) Check(rules []Rule) []Violation {
	var out []Violation
	for _, r := range rules {
		for _, p := range g.Packages() {
			if !matchAny(r.From, p) || matchAny(r.NotFrom, p) {
				continue
			}
			for _, d := range g[p] {
				if d != p && matchAny(r.To, d) && !matchAny(r.NotTo, d) {
					out = append(out, Violation{Rule: r.Doc, From: p, To: d})
				}
			}
		}
	}
	return out
}

// CheckLayers returns the imports that point up the list of layers (from
// a package to one of a later layer) and, as violations from "" to the
// package, the packages that belong to no layer.
func (g Graph) CheckLayers(layers []Layer) []Violation {
	const up = "a package imports only packages of its own layer or an earlier one"
	var out []Violation
	for _, p := range g.Packages() {
		i := LayerOf(layers, p)
		if i < 0 {
			out = append(out, Violation{Rule: "every package belongs to a layer", To: p})
			continue
		}
		for _, d := range g[p] {
			if j := LayerOf(layers, d); j > i {
				out = append(out, Violation{Rule: up, From: p, To: d})
			}
		}
	}
	return out
}
