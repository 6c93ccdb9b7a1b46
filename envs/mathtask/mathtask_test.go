package mathtask

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
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

// TestLoadBenchmarks reads each benchmark file: the hand-made ones in the
// benchmarks' formats (testdata at the module root), and the real files
// when they are present (internal/datadir).
func TestLoadBenchmarks(t *testing.T) {
	type file struct {
		rel             string
		tasks, unusable int // usable problems; records without an answer
	}
	fixture := filepath.Join("..", "..", "testdata")
	for _, src := range []struct {
		name  string
		path  func(t testing.TB, rel string) string
		files []file
	}{
		{"fixture", func(_ testing.TB, rel string) string { return filepath.Join(fixture, filepath.FromSlash(rel)) }, []file{
			{"math500/test.jsonl", 6, 0}, {"aime24/test.jsonl", 4, 0}, {"aime25/test.jsonl", 4, 0},
			{"amc23/test.jsonl", 4, 0}, {"olympiadbench/test.jsonl", 4, 0}, {"math_train/math.json", 3, 2},
		}},
		// The MATH train split has 4 records with an empty or null answer.
		{"benchmark", datadir.Require, []file{
			{"math500/test.jsonl", 500, 0}, {"aime24/test.jsonl", 30, 0}, {"aime25/test.jsonl", 30, 0},
			{"amc23/test.jsonl", 40, 0}, {"olympiadbench/test.jsonl", 675, 0},
			{"math_train/math.json", 7470, 4},
		}},
	} {
		for _, f := range src.files {
			t.Run(src.name+"/"+f.rel, func(t *testing.T) {
				tasks, skipped, err := Load(src.path(t, f.rel))
				if err != nil {
					t.Fatal(err)
				}
				if len(tasks) != f.tasks || skipped != f.unusable {
					t.Errorf("%d tasks, %d skipped; want %d and %d", len(tasks), skipped, f.tasks, f.unusable)
				}
				for i, task := range tasks {
					if task.ID == "" || task.Prompt == "" || task.Answer == "" {
						t.Errorf("task %d: %+v: want an id, a prompt and an answer", i, task)
					}
				}
			})
		}
	}
}
