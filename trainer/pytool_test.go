package trainer

import (
	"context"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/pysandbox"
)

func TestOpenPython(t *testing.T) {
	cfg, err := Parse([]byte("tool:\n  kind: python\n  python:\n    interpreter: /usr/bin/python3\n"), "test.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Tool.Kind != family.PythonTool {
		t.Fatalf("tool.kind = %q", cfg.Tool.Kind)
	}
	tool, closeTool, err := openPython(cfg.Tool)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTool()
	if r := tool.Call(context.Background(), "print(6 * 7)"); r.Output != "42\n" {
		t.Errorf("Call = %+v, want 42", r)
	}
	if libs := tool.(*pysandbox.Sandbox).Libraries(); len(libs) == 0 || !strings.HasPrefix(libs[0], "python ") {
		t.Errorf("Libraries = %q", libs)
	}
}

func TestDescribeLibraries(t *testing.T) {
	cases := []struct {
		libs []string
		want string
	}{
		{nil, ""},
		{[]string{"python 3.11.2"}, "python 3.11.2 with the standard library"},
		{[]string{"python 3.11.2", "numpy 1.24.2", "sympy 1.11.1"}, "python 3.11.2 with the standard library, numpy 1.24.2, sympy 1.11.1"},
	}
	for _, c := range cases {
		if got := describeLibraries(c.libs); got != c.want {
			t.Errorf("describeLibraries(%q) = %q, want %q", c.libs, got, c.want)
		}
	}
}
