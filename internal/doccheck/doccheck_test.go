package doccheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the module root, two folders up.
const root = "../.."

// docs returns README.md and docs/*.md, relative to root.
func docs(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, filepath.ToSlash(rel))
	}
	return files
}

// TestDocs checks README.md and every docs/*.md: fences, relative links
// and anchors, artist commands and configs/, scripts/, deploy/ paths.
func TestDocs(t *testing.T) {
	cmds, err := Subcommands(filepath.Join(root, "cmd", "artist"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range docs(t) {
		t.Run(f, func(t *testing.T) {
			probs, err := Check(root, f, cmds)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range probs {
				t.Errorf("%s:%s", f, p)
			}
		})
	}
}

// TestReadmeLinksEveryPage keeps the README's map of docs/ complete.
func TestReadmeLinksEveryPage(t *testing.T) {
	src := mustRead(t, "README.md")
	var linked []string
	for _, l := range Parse(src).Links() {
		file, _, _ := strings.Cut(l.Dest, "#")
		linked = append(linked, filepath.ToSlash(filepath.Clean(file)))
	}
	for _, f := range docs(t)[1:] {
		if !slices.Contains(linked, f) {
			t.Errorf("README.md does not link %s: add it to the map of docs/", f)
		}
	}
}

// TestCheckFails runs Check on a file with one problem of each kind.
func TestCheckFails(t *testing.T) {
	dir := t.TempDir()
	src := "# Page\n\n" +
		"Train with `artist trian -config configs/none.yaml`.\n\n" + // line 3
		"See [speed](docs/speed.md) and [the page](#nowhere).\n\n" + // line 5
		"```sh\ngo test ./...\n``` Checkpoints are\nmore\n```\n" // line 9
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	probs, err := Check(dir, "README.md", []string{"train", "eval"})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, p := range probs {
		got = append(got, p.Line)
	}
	if want := []int{3, 3, 5, 5, 9}; !slices.Equal(got, want) {
		t.Errorf("problems at lines %v, want %v:\n%v", got, want, probs)
	}
}

func TestSubcommands(t *testing.T) {
	cmds, err := Subcommands(filepath.Join(root, "cmd", "artist"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"train", "eval", "serve", "help"} {
		if !slices.Contains(cmds, want) {
			t.Errorf("Subcommands = %v, want %q among them", cmds, want)
		}
	}
	if _, err := Subcommands(t.TempDir()); err == nil {
		t.Error("Subcommands of a folder without a commands table: no error")
	}
}

func TestFences(t *testing.T) {
	for i, c := range []struct {
		name, src string
		want      []int // lines of the problems
	}{
		{"closed", "text\n\n```sh\ngo test ./...\n```\n\nmore\n", nil},
		{"closed by a longer fence", "````\n```go\nx\n```\n`````\n", nil},
		{"tildes", "~~~\n```\n~~~\n", nil},
		{"last line without newline", "```\nx\n```", nil},
		{"empty block", "```\n```\n", nil},
		{"unclosed", "text\n\n```sh\ngo test ./...\n", []int{3}},
		{"closer with text after it", "```sh\ngo test ./...\n``` Checkpoints are\nHuggingFace folders.\n```\n", []int{3}},
		{"text after a closer opens a block", "para\n\n``` Checkpoints are\nx\n```\n", []int{3}},
		{"a short fence is content", "````\n```go\n````\n", nil},
		{"in a list", "- item\n\n  ```\n  x\n  ```\n- next\n", nil},
		{"list ends the block", "- item\n\n  ```\n  x\n- next\n", []int{3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			probs := Parse([]byte(c.src)).Fences()
			var got []int
			for _, p := range probs {
				got = append(got, p.Line)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("case %d: problems at lines %v, want %v: %v", i, got, c.want, probs)
			}
		})
	}
}

func TestCommands(t *testing.T) {
	for i, c := range []struct {
		code string
		want []string
	}{
		{"go run ./cmd/artist train -config configs/tiny-tool-arith.yaml", []string{"train"}},
		{"./artist eval -checkpoint runs/x\nmpirun -np 2 artist bench -allreduce", []string{"eval", "bench"}},
		{"go build -o artist ./cmd/artist", nil},
		{"kubectl logs -f job/artist-train-launcher", nil},
		{"artist serve's aggregate tokens/s", []string{"serve"}},
		{"ARTIST_BACKEND=go artist", nil},
	} {
		if got := Commands(c.code); !slices.Equal(got, c.want) {
			t.Errorf("case %d: Commands(%q) = %q, want %q", i, c.code, got, c.want)
		}
	}
}

func TestRepoPaths(t *testing.T) {
	for i, c := range []struct {
		text string
		want []string
	}{
		{"`configs/tiny-tool-arith.yaml` and scripts/bench.sh.", []string{"configs/tiny-tool-arith.yaml", "scripts/bench.sh"}},
		{"| `configs/`, `scripts/` | run configs |", nil},
		{"configs/*.yaml", nil},
		{"policy/testdata/configs/x.yaml https://example.com/scripts/a.sh", nil},
		{"(`deploy/mpijob.yaml`)", []string{"deploy/mpijob.yaml"}},
	} {
		if got := RepoPaths(c.text); !slices.Equal(got, c.want) {
			t.Errorf("case %d: RepoPaths(%q) = %q, want %q", i, c.text, got, c.want)
		}
	}
}

func TestLinks(t *testing.T) {
	src := "# Speed\n\n## The KL reference in bfloat16\n\n[a](speed.md) ![b](docs/view-curves.png) [c](#speed) [d](#the-kl-reference-in-bfloat16) [e](#nowhere)\n"
	d := Parse([]byte(src))
	var dests []string
	for _, l := range d.Links() {
		dests = append(dests, l.Dest)
		if l.Line != 5 {
			t.Errorf("link %s at line %d, want 5", l.Dest, l.Line)
		}
	}
	want := []string{"speed.md", "docs/view-curves.png", "#speed", "#the-kl-reference-in-bfloat16", "#nowhere"}
	if !slices.Equal(dests, want) {
		t.Errorf("Links = %q, want %q", dests, want)
	}
	for _, c := range []struct {
		dest string
		ok   bool
	}{{"#speed", true}, {"#the-kl-reference-in-bfloat16", true}, {"#nowhere", false}, {"https://example.com/x.md", true}, {"docs/view-curves.png", true}, {"docs/missing.png", false}} {
		if got := checkLink(root, "README.md", d, Link{Dest: c.dest}) == ""; got != c.ok {
			t.Errorf("checkLink(%q) ok = %v, want %v", c.dest, got, c.ok)
		}
	}
}

func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Many processes and machines (MPI)":                         "many-processes-and-machines-mpi",
		"Generating while the trainer updates (grpo.max_staleness)": "generating-while-the-trainer-updates-grpomax_staleness",
		"The full Qwen2.5-0.5B training step":                       "the-full-qwen25-05b-training-step",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	return src
}
