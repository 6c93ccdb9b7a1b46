package archgraph

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the import graph in docs/ARCHITECTURE.md")

// root is the module root, seen from this package's folder.
const root = "../.."

// docFile is the document that holds the graph.
var docFile = filepath.Join(root, "docs", "ARCHITECTURE.md")

// width is the column the rendered graph wraps before.
const width = 78

// load reads the project's graph once per test.
func load(t *testing.T) Graph {
	t.Helper()
	g, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestDocGraph: the block of docs/ARCHITECTURE.md between the markers is
// the project's import graph as Render writes it; -update rewrites it.
func TestDocGraph(t *testing.T) {
	want := Fence(load(t).Render(Layers, width))
	src, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		out, err := ReplaceBlock(string(src), want)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(docFile, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := Block(string(src))
	if err != nil {
		t.Fatalf("docs/ARCHITECTURE.md: %v", err)
	}
	if got != want {
		t.Errorf("the import graph in docs/ARCHITECTURE.md is not the code's; regenerate it with\n\tgo test ./internal/archgraph -run TestDocGraph -update\n%s", lineDiff(got, want))
	}
}

// lineDiff lists the lines only in got (-) and only in want (+).
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// TestProjectLayering: every package has a layer, no import points up
// the layers, and the project keeps every rule of Rules.
func TestProjectLayering(t *testing.T) {
	g := load(t)
	for _, v := range append(g.CheckLayers(Layers), g.Check(Rules)...) {
		t.Error(v)
	}
	for _, p := range []string{"trainer", "rollout", "policy", "cmd/artist", "rollout/format"} {
		if _, ok := g[p]; !ok {
			t.Errorf("package %s not found: the graph was not read from the module", p)
		}
	}
}

// TestRulesCatch: each rule of the project catches the import it is
// there to refuse, and lets the allowed ones through.
func TestRulesCatch(t *testing.T) {
	cases := []struct {
		from, to string
		broken   bool
	}{
		{"server", "trainer", true},
		{"checkpoint", "trainer", true},
		{"cmd/artist", "trainer", false},
		{"policy", "rollout", true},
		{"policy", "trainer", true},
		{"policy", "policy/backend", false},
		{"trainer", "policy/backend/cpu", true},
		{"server", "policy/backend/cuda", true},
		{"fleet", "policy/backend/cuda/kernels", true},
		{"cmd/artist", "policy/backend/cpu", false},
		{"policy/backend/arenatest", "policy/backend/cpu", false},
		{"policy/backend/cuda", "policy/backend/cuda/kernels", false},
		{"rollout", "policy", true},
		{"evalbench", "checkpoint", true},
		{"trainer", "policy", false},
		{"rollout/format", "envs", true},
		{"reward/mathgrade", "reward", true},
		{"reward/mathgrade", "rollout/format", false},
		{"trainer", "envs/bfcl", true},
		{"reward", "envs/taubench", true},
		{"envs/fcsynth", "envs/bfcl", false},
		{"envs/builtin", "envs/arith", false},
		{"envs", "rollout", true},
	}
	for _, c := range cases {
		g := Graph{c.from: {c.to}, c.to: {}}
		got := len(g.Check(Rules)) > 0
		if got != c.broken {
			t.Errorf("%s imports %s: broken %v, want %v", c.from, c.to, got, c.broken)
		}
	}
}

// TestCheckLayers: an import up the layers and a package in no layer are
// reported; imports within a layer and down are not.
func TestCheckLayers(t *testing.T) {
	layers := []Layer{{"low", []string{"a", "b/..."}}, {"high", []string{"c"}}}
	cases := []struct {
		name string
		g    Graph
		want []string
	}{
		{"down and within", Graph{"c": {"a", "b/x"}, "a": {"b"}, "b": {}, "b/x": {}}, nil},
		{"up", Graph{"a": {"c"}, "c": {}}, []string{"a imports c"}},
		{"unplaced", Graph{"d": {}}, []string{"d: breaks"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := c.g.CheckLayers(layers)
			if len(vs) != len(c.want) {
				t.Fatalf("got %v, want %d violations", vs, len(c.want))
			}
			for i, v := range vs {
				if !strings.HasPrefix(v.String(), c.want[i]) {
					t.Errorf("violation %q, want it to start %q", v, c.want[i])
				}
			}
		})
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, pkg string
		want         bool
	}{
		{"...", "anything/at/all", true},
		{"policy/...", "policy", true},
		{"policy/...", "policy/backend/cpu", true},
		{"policy/...", "policyx", false},
		{"policy", "policy/backend", false},
		{"rollout", "rollout", true},
	}
	for _, c := range cases {
		if got := Match(c.pattern, c.pkg); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.pkg, got, c.want)
		}
	}
}

func TestRenderWraps(t *testing.T) {
	g := Graph{"top": {"aaaa", "bbbb", "cccc"}, "aaaa": {}, "bbbb": {}, "cccc": {}}
	got := g.Render([]Layer{{"low", []string{"aaaa", "bbbb"}}, {"high", []string{"top"}}}, 14)
	want := "# low\naaaa:\nbbbb:\n\n# high\ntop: aaaa bbbb\n    cccc\n\n# unplaced\ncccc:\n"
	if got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
}

func TestBlock(t *testing.T) {
	b, e := BeginMarker+"\n", EndMarker+"\n"
	cases := []struct {
		name, doc, want string
		ok              bool
	}{
		{"block", "intro\n" + b + "old\n" + e + "outro\n", "old\n", true},
		{"empty", b + e, "", true},
		{"no end", "intro\n" + b + "old\n", "", false},
		{"reversed", e + "old\n" + b, "", false},
		{"twice", b + e + b + e, "", false},
		{"not on its own line", "x " + BeginMarker + "\n" + e, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Block(c.doc)
			if (err == nil) != c.ok || got != c.want {
				t.Fatalf("Block = %q, %v; want %q, ok %v", got, err, c.want, c.ok)
			}
			if !c.ok {
				return
			}
			out, err := ReplaceBlock(c.doc, "new\n")
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := Block(out); got != "new\n" || !strings.HasSuffix(out, e+strings.SplitAfter(c.doc, e)[1]) {
				t.Errorf("ReplaceBlock gave %q", out)
			}
		})
	}
}
