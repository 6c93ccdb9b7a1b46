package trainer

import (
	"slices"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/pysandbox"
)

// TestToolLibraries: summary.json lists the Python tool's libraries, the
// interpreter first, and nothing for other tools.
func TestToolLibraries(t *testing.T) {
	cfg, err := Parse([]byte("tool:\n  kind: python\n  python:\n    interpreter: /usr/bin/python3\n"), "test.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	py, closeTool, err := openPython(cfg.Tool)
	if err != nil { // as envs/pysandbox's tests, meant to run where the jail can be built
		t.Fatal(err)
	}
	defer closeTool()
	cases := []struct {
		name   string
		kind   string
		tool   envs.Tool
		python bool // want the sandbox's list
	}{
		{"python", family.PythonTool, py, true},
		{"go sandbox", family.SandboxTool, envs.Disabled{}, false},
		{"disabled", "disabled", envs.Disabled{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Run{Cfg: cfg, Tool: c.tool}
			r.Cfg.Tool.Kind = c.kind
			got := r.toolLibraries()
			if !c.python {
				if got != nil {
					t.Errorf("toolLibraries = %q, want none", got)
				}
				return
			}
			want := py.(*pysandbox.Sandbox).Libraries()
			if !slices.Equal(got, want) || len(got) == 0 || !strings.HasPrefix(got[0], "python ") {
				t.Errorf("toolLibraries = %q, want %q, the interpreter first", got, want)
			}
		})
	}
}
