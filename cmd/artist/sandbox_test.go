package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandboxCLI runs `artist sandbox args...` with stdin as its standard input.
func sandboxCLI(t *testing.T, stdin string, args ...string) (code int, results []sandboxResult, stderr string) {
	t.Helper()
	ctx := withStdin(context.Background(), strings.NewReader(stdin))
	var out, errb bytes.Buffer
	code = run(ctx, append([]string{"sandbox"}, args...), &out, &errb)
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	for dec.More() {
		var r sandboxResult
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("output is not JSON lines: %v\n%s", err, out.String())
		}
		results = append(results, r)
	}
	return code, results, errb.String()
}

// writeFiles writes name/content pairs into a temporary folder and returns
// their paths in order.
func writeFiles(t *testing.T, pairs ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 0; i+1 < len(pairs); i += 2 {
		p := filepath.Join(dir, pairs[i])
		if err := os.WriteFile(p, []byte(pairs[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func TestSandboxCommand(t *testing.T) {
	files := writeFiles(t,
		"ok.go", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(4821 * 37) }\n",
		"empty.go", "x := 1\n_ = x\n",
		"denied.go", "import \"os\"\nos.Exit(1)\n",
		"loop.go", "for {}\n",
		"long.go", "for i := 0; i < 100; i++ { fmt.Print(\"ab\") }\n",
	)
	code, res, stderr := sandboxCLI(t, "", append([]string{"-timeout", "300ms", "-output", "10", "-jobs", "2"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []sandboxResult{
		{File: files[0], Status: "ok", Stdout: "178377\n"},
		{File: files[1], Status: "empty"},
		{File: files[2], Status: "error", Error: `import "os" is not allowed`},
		{File: files[3], Status: "timeout", Error: "timeout after 300ms"},
		{File: files[4], Status: "ok", Stdout: "ababababab", Truncated: true},
	}
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(res), len(want), res)
	}
	for i, w := range want {
		g := res[i]
		if g.File != w.File || g.Status != w.Status || g.Stdout != w.Stdout || !strings.HasPrefix(g.Error, w.Error) ||
			g.Truncated != w.Truncated || g.WallMS <= 0 {
			t.Errorf("result %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestSandboxCommandStatefulAndStdin(t *testing.T) {
	files := writeFiles(t, "a.go", "func sq(n int) int { return n * n }\n", "b.go", "fmt.Println(sq(9))\n")
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  []string // status and stdout of each result
	}{
		{"stateful files see earlier definitions", "", append([]string{"-stateful"}, files...), []string{"empty ", "ok 81\n"}},
		{"stateless files do not", "", files, []string{"empty ", "error "}},
		{"standard input", "fmt.Println(\"in\")", nil, []string{"ok in\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, res, stderr := sandboxCLI(t, tc.stdin, tc.args...)
			if code != 0 || len(res) != len(tc.want) {
				t.Fatalf("exit %d, %d results %+v: %s", code, len(res), res, stderr)
			}
			for i, w := range tc.want {
				if got := string(res[i].Status) + " " + res[i].Stdout; got != w {
					t.Errorf("result %d = %+v, want status and stdout %q", i, res[i], w)
				}
			}
			if tc.stdin != "" && res[0].File != "-" {
				t.Errorf("file of standard input = %q, want -", res[0].File)
			}
		})
	}
}

func TestSandboxCommandMisuse(t *testing.T) {
	files := writeFiles(t, "ok.go", "fmt.Println(1)")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-bogus"}, "flag provided but not defined"},
		{"missing file", []string{files[0], "missing.go"}, "missing.go"},
		{"zero jobs", []string{"-jobs", "0", files[0]}, "-jobs must be at least 1"},
		{"tiny memory", []string{"-memory", "5", files[0]}, "memory must be at least"},
		{"zero timeout", []string{"-timeout", "0s", files[0]}, "timeout must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, res, stderr := sandboxCLI(t, "", tc.args...)
			if code != 2 || len(res) != 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, results %+v, stderr %q; want exit 2, no results, %q", code, res, stderr, tc.want)
			}
		})
	}
}

// TestSandboxSyntaxPosition: a syntax error names its line and column in
// the input, for programs and snippets, read from files or from "-".
func TestSandboxSyntaxPosition(t *testing.T) {
	files := writeFiles(t,
		"prog.go", "package main\n\nfunc main() { x := }\n",
		"decl.go", "func f() int {\n\treturn 1 +\n}\n",
		"ok.go", "fmt.Println(2)\n",
	)
	code, res, stderr := sandboxCLI(t, "x := 3\nfmt.Println(1 +)\n", files[0], "-", files[1], files[2])
	if code != 0 || len(res) != 4 {
		t.Fatalf("exit %d, %d results: %s", code, len(res), stderr)
	}
	want := []struct {
		file      string
		line, col int
	}{{files[0], 3, 20}, {"-", 2, 16}, {files[1], 3, 1}, {files[2], 0, 0}}
	for i, w := range want {
		r := res[i]
		if r.File != w.file || r.Line != w.line || r.Column != w.col {
			t.Errorf("result %d: %s at %d:%d (%q); want %s at %d:%d", i, r.File, r.Line, r.Column, r.Error, w.file, w.line, w.col)
		}
		if w.line > 0 && !strings.HasPrefix(r.Error, fmt.Sprintf("%d:%d: ", w.line, w.col)) {
			t.Errorf("result %d: error %q does not start with its position", i, r.Error)
		}
	}
	if code, _, stderr := sandboxCLI(t, "", "-", "-"); code != 2 || !strings.Contains(stderr, "named twice") {
		t.Errorf("- twice: exit %d, stderr %q", code, stderr)
	}
}
