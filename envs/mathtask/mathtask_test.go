package mathtask

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFixture(t *testing.T) {
	tasks, _, err := Load("testdata/tiny.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, answer, prefix string }{
		{"t/1", "5", "What is"},
		{"7", "0.75", "Compute"},
		{"tiny.jsonl-2", "$\\pm 2$", "Give the roots"},
	}
	if len(tasks) != len(want) {
		t.Fatalf("got %d tasks, want %d", len(tasks), len(want))
	}
	for i, w := range want {
		got := tasks[i]
		if got.ID != w.id || got.Answer != w.answer || !strings.HasPrefix(got.Prompt, w.prefix) {
			t.Errorf("case %d: got %+v, want id %q answer %q prompt %q...", i, got, w.id, w.answer, w.prefix)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, content, want string }{
		{"noanswer.jsonl", `{"problem": "x"}`, "no problems"},
		{"badanswer.jsonl", `{"problem": "x", "answer": {"a": 1}}`, "answer"},
		{"noproblem.jsonl", `{"answer": "1"}`, "problem"},
		{"bad.jsonl", `{"problem": `, "line 1"},
		{"empty.jsonl", "\n", "no problems"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			os.WriteFile(p, []byte(c.content), 0o644)
			_, _, err := Load(p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

// TestLoadSharedBenchmarks reads the real benchmark files when the data
// folder is next to the project.
func TestLoadSharedBenchmarks(t *testing.T) {
	// file -> usable problems; the MATH train split has 4 records with an
	// empty or null answer.
	files := map[string]int{
		"math500/test.jsonl": 500, "aime24/test.jsonl": 30, "aime25/test.jsonl": 30,
		"amc23/test.jsonl": 40, "math_train_substitute/deepscaler_math_train.json": 7470,
	}
	root := filepath.Join("..", "..", "..", "shared", "data")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("benchmark data not present at %s", root)
	}
	for f, n := range files {
		tasks, _, err := Load(filepath.Join(root, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(tasks) != n {
			t.Errorf("%s: %d tasks, want %d", f, len(tasks), n)
		}
	}
}
