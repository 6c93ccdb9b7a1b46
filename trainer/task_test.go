package trainer

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/arith"
	"github.com/artist-rl/artist/envs/bfcl"
)

// TestTaskSections: each family's section decodes onto its defaults,
// strictly, and a config is a value: decoding into a copy leaves the
// original's sections alone.
func TestTaskSections(t *testing.T) {
	base, err := Parse([]byte("task:\n  arith:\n    eval_size: 7\n"), "x.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := base
	if err := applySet(&c, "task.arith.eval_size=9"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		got  int
		want int
	}{
		{"file onto defaults", base.Task.Section("arith").(*arith.Config).EvalSize, 7},
		{"copy decoded apart", c.Task.Section("arith").(*arith.Config).EvalSize, 9},
		{"other keys keep defaults", len(base.Task.Section("arith").(*arith.Config).Ops), 3},
		{"other families keep defaults", base.Task.Section("bfcl").(*bfcl.Config).Train, 100},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	for _, bad := range []struct{ yaml, want string }{
		{"task:\n  chess: {}\n", `unknown key "task.chess": valid keys under task are name, arith, bfcl`}, // and any family a test registered
		{"task:\n  bfcl:\n    train: many\n", "task.bfcl.train"},
		{"task: 3\n", "task must be a mapping"},
	} {
		if _, err := Parse([]byte(bad.yaml), "x.yaml", nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one containing %q", bad.yaml, err, bad.want)
		}
	}
}
