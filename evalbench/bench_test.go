package evalbench

import (
	"path/filepath"
	"testing"

	"github.com/artist-rl/artist/rollout/format"
)

// TestBenchToolKind: a benchmark runs the tool its family understands,
// keeping the ablation and the policy's own kind when the family lists
// it.
func TestBenchToolKind(t *testing.T) {
	root := filepath.Join("..", "testdata")
	cases := []struct {
		bench, kind, want string
	}{
		{"math500", "sandbox", "sandbox"},
		{"math500", "disabled", "disabled"},
		{"math500", "python", "python"},
		{"math500", "bfcl", "sandbox"},
		{"bfcl_v3_base", "bfcl", "bfcl"},
		{"bfcl_v3_base", "sandbox", "bfcl"},
		{"bfcl_v3_base", "disabled", "disabled"},
		{"bfcl_v3_base", "python", "bfcl"},
	}
	for _, c := range cases {
		t.Run(c.bench+"/"+c.kind, func(t *testing.T) {
			b, err := Open(root, c.bench, func(string) any { return nil }, format.DefaultFormat())
			if err != nil {
				t.Fatal(err)
			}
			if got := b.ToolKind(c.kind); got != c.want {
				t.Errorf("ToolKind(%q) = %q, want %q", c.kind, got, c.want)
			}
		})
	}
	if _, err := Open(root, "gsm8k", func(string) any { return nil }, format.DefaultFormat()); err == nil {
		t.Error("an unknown benchmark opened")
	}
}
