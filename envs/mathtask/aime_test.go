package mathtask

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/datadir"
)

// TestDeriveAIMEMatchesPublished derives AIME 2025 from matharena's files
// and compares it byte for byte, and line by line as JSON, with the
// published aime25/test.jsonl.
func TestDeriveAIMEMatchesPublished(t *testing.T) {
	src := datadir.Require(t, "aime25/source")
	want, err := os.ReadFile(datadir.Require(t, "aime25/test.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := DeriveAIME(src, AIME2025Papers)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("derived %d lines, published %d", len(gl), len(wl))
	}
	for i := range wl {
		var g, w any
		if wl[i] == "" && gl[i] == "" {
			continue
		}
		if err := json.Unmarshal([]byte(gl[i]), &g); err != nil {
			t.Fatalf("derived line %d: %v", i+1, err)
		}
		if err := json.Unmarshal([]byte(wl[i]), &w); err != nil {
			t.Fatalf("published line %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("line %d differs:\n got %.200s\nwant %.200s", i+1, gl[i], wl[i])
		}
	}
	if !bytes.Equal(got, want) {
		t.Error("derived file is JSON-equal per line but not byte-equal")
	}
	path := filepath.Join(t.TempDir(), "test.jsonl")
	if err := os.WriteFile(path, got, 0o644); err != nil {
		t.Fatal(err)
	}
	tasks, skipped, err := Load(path)
	if err != nil || len(tasks) != 30 || skipped != 0 {
		t.Fatalf("Load: %d tasks, %d skipped, %v; want 30, 0", len(tasks), skipped, err)
	}
	if tasks[0].ID != "2025-I-1" || tasks[0].Answer != "70" {
		t.Errorf("first task %q answer %q", tasks[0].ID, tasks[0].Answer)
	}
}

// writeFiles creates the files (slash paths relative to dir).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDeriveAIME(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"aime_2030_I/answers.csv":     "id,answer\n2, 7 \n1,033\n",
		"aime_2030_I/problems/1.tex":  "\n  Find $x$ if \"x\" \\in S.\n\n\x1c",
		"aime_2030_I/problems/2.tex":  "Café\ttab — 😀\r\n",
		"aime_2030_II/answers.csv":    "id,answer\r\n1,5\r\n",
		"aime_2030_II/problems/1.tex": "Last.",
	})
	got, err := DeriveAIME(dir, []string{"aime_2030_I", "aime_2030_II"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id": "2030-I-2", "problem": "Caf\u00e9\ttab \u2014 \ud83d\ude00", "answer": "7", "source_path": "data/aime/aime_2030_I/problems/2.tex"}
{"id": "2030-I-1", "problem": "Find $x$ if \"x\" \\in S.", "answer": "033", "source_path": "data/aime/aime_2030_I/problems/1.tex"}
{"id": "2030-II-1", "problem": "Last.", "answer": "5", "source_path": "data/aime/aime_2030_II/problems/1.tex"}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDeriveAIMEErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no answers", map[string]string{"p/problems/1.tex": "x"}, "answers.csv"},
		{"bad header", map[string]string{"p/answers.csv": "problem,answer\n1,2\n"}, "header must be id,answer"},
		{"missing problem", map[string]string{"p/answers.csv": "id,answer\n1,2\n"}, filepath.Join("problems", "1.tex")},
		{"empty answer", map[string]string{"p/answers.csv": "id,answer\n1, \n", "p/problems/1.tex": "x"}, "line 2"},
		{"repeated id", map[string]string{"p/answers.csv": "id,answer\n1,2\n1,3\n", "p/problems/1.tex": "x"}, "line 3"},
		{"unanswered problem", map[string]string{"p/answers.csv": "id,answer\n1,2\n", "p/problems/1.tex": "x", "p/problems/2.tex": "y"}, "no answer in answers.csv for 2.tex"},
		{"short row", map[string]string{"p/answers.csv": "id,answer\n1\n"}, "answers.csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			_, err := DeriveAIME(dir, []string{"p"})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "mathtask: ") {
				t.Errorf("error %v; want one containing %q", err, c.want)
			}
		})
	}
}

func TestPyStrip(t *testing.T) {
	for in, want := range map[string]string{
		" a b ":                        "a b",
		"\t\n\v\f\r a\x1c\x1d\x1e\x1f": "a",
		"\u00a0\u2003a\u3000":          "a",
		"\u200ba\u200b":                "\u200ba\u200b", // zero-width space is not white space in Python
		"":                             "",
	} {
		if got := pyStrip(in); got != want {
			t.Errorf("pyStrip(%q) = %q, want %q", in, got, want)
		}
	}
}
