package taubench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
	"github.com/artist-rl/artist/internal/pyval"
)

// TestConvertMatchesShared converts every upstream task and rules module
// and compares the result with the shared JSON files, as values (types
// and key order included) and byte for byte.
func TestConvertMatchesShared(t *testing.T) {
	root := datadir.Require(t, "tau_bench")
	cases := []struct{ py, json string }{
		{"airline/tasks_test.py", "airline/tasks_test.json"},
		{"retail/tasks_test.py", "retail/tasks_test.json"},
		{"retail/tasks_dev.py", "retail/tasks_dev.json"},
		{"retail/tasks_train.py", "retail/tasks_train.json"},
		{"airline/rules.py", "airline/rules.json"},
		{"retail/rules.py", "retail/rules.json"},
	}
	for _, c := range cases {
		t.Run(c.py, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(root, "source", c.py))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(root, c.json))
			if err != nil {
				t.Fatal(err)
			}
			convert := ConvertTasks
			if strings.HasSuffix(c.py, "rules.py") {
				convert = ConvertRules
			}
			got, err := convert(string(src))
			if err != nil {
				t.Fatal(err)
			}
			wantV, err := pyval.DecodeJSON(want)
			if err != nil {
				t.Fatal(err)
			}
			if !pyval.Identical(got, wantV) {
				t.Errorf("converted value differs from %s", c.json)
			}
			text, err := ConvertJSON(got)
			if err != nil {
				t.Fatal(err)
			}
			if text != string(want) {
				t.Errorf("converted text differs from %s", c.json)
			}
		})
	}
}
