package arith_test

import (
	"path/filepath"
	"testing"

	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/trainer"
)

// TestPythonConfigs: each Python config is its Go twin with tool.kind
// python and a run folder of its own.
func TestPythonConfigs(t *testing.T) {
	cases := []struct{ python, goTwin string }{
		{"tiny-tool-arith-python.yaml", "tiny-tool-arith.yaml"},
		{"tiny-tool-multistep-python.yaml", "tiny-tool-multistep.yaml"},
	}
	for _, c := range cases {
		t.Run(c.python, func(t *testing.T) {
			py, err := trainer.Load(filepath.Join("..", "..", "configs", c.python), nil)
			if err != nil {
				t.Fatal(err)
			}
			gc, err := trainer.Load(filepath.Join("..", "..", "configs", c.goTwin), nil)
			if err != nil {
				t.Fatal(err)
			}
			if py.Tool.Kind != family.PythonTool || gc.Tool.Kind != family.SandboxTool || py.RunDir == gc.RunDir {
				t.Fatalf("tool.kind %q (Go twin %q), run_dir %q (Go twin %q)", py.Tool.Kind, gc.Tool.Kind, py.RunDir, gc.RunDir)
			}
			py.Tool.Kind, py.RunDir = gc.Tool.Kind, gc.RunDir
			a, errA := py.Marshal()
			b, errB := gc.Marshal()
			if errA != nil || errB != nil || string(a) != string(b) {
				t.Errorf("the configs differ beyond tool.kind and run_dir (%v, %v)", errA, errB)
			}
		})
	}
}
