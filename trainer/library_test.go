package trainer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
)

// seedLibrary writes a library holding gcd (from the toollib fixtures) and
// returns its path.
func seedLibrary(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "envs", "toollib", "testdata", "gcd.go"))
	if err != nil {
		t.Fatal(err)
	}
	tool, err := toollib.ParseTool(string(src))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	path := filepath.Join(t.TempDir(), "seed.db")
	lib, err := toollib.OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	if _, err := lib.Add(context.Background(), sb, tool, toollib.Provenance{Source: "human"}, toollib.Approved); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestToolLibrary: a task retrieves the library's relevant functions, its
// prompt lists them and its code calls them without defining them; a
// grown library is saved in the run folder at checkpoints and a resumed
// run starts from it, not from the seed.
func TestToolLibrary(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir)
	cfg.Tool.Library = LibraryConfig{Path: seedLibrary(t), K: 2, Grow: true}
	r, err := Setup(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	task := envs.Task{ID: "g", Prompt: "What is the greatest common divisor of 84 and 36?"}
	if p := r.promptText(task); !strings.Contains(p, "Library functions you may call:\nfunc gcd(a, b int) int") {
		t.Errorf("prompt does not list gcd:\n%s", p)
	}
	if p := r.promptText(envs.Task{ID: "x", Prompt: "Name a colour."}); strings.Contains(p, "Library") {
		t.Errorf("an unrelated task lists library functions:\n%s", p)
	}
	sess := r.Tool.(envs.SessionTool).OpenSession(task)
	res := sess.Call(context.Background(), "fmt.Println(gcd(84, 36))")
	sess.Close()
	if res.Status != envs.StatusOK || res.Output != "12\n" {
		t.Fatalf("calling the library: %+v", res)
	}

	// The policy writes a documented function with examples: it joins.
	grow := "// triple returns three times n.\n//\n//\ttriple(4) == 12\nfunc triple(n int) int { return 3 * n }\nfmt.Println(triple(5))"
	if res := r.Tool.(envs.SessionTool).OpenSession(task).Call(context.Background(), grow); res.Status != envs.StatusOK {
		t.Fatalf("growing call: %+v", res)
	}
	if r.lib.Grown() != 1 || r.lib.Lib.Len() != 2 {
		t.Fatalf("grown %d, library %d; want triple added", r.lib.Grown(), r.lib.Lib.Len())
	}
	if tr, err := r.lib.Lib.ByName(context.Background(), "triple"); err != nil || tr.State != toollib.Pending || tr.Provenance.Task != "g" {
		t.Errorf("grown triple: %+v, %v; want it pending, from task g", tr, err)
	}
	if p := r.promptText(envs.Task{Prompt: "triple a number"}); strings.Contains(p, "triple") && strings.Contains(p, "Library") {
		t.Errorf("a pending tool is offered to a task:\n%s", p)
	}
	if err := os.MkdirAll(filepath.Join(dir, "checkpoints"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.saveCheckpoint(&trainerState{Seed: cfg.Seed}, nil); err != nil {
		t.Fatal(err)
	}
	again, err := Setup(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if n := again.lib.Lib.Len(); n != 2 {
		t.Errorf("resumed run's library holds %d tools, want the grown 2", n)
	}
	seed, err := toollib.OpenDB(cfg.Tool.Library.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer seed.Close()
	if seed.Len() != 1 {
		t.Errorf("the seed library changed: %d tools", seed.Len())
	}
}

// TestToolLibrarySettings: auto-approval is said in the run's log, and a
// JSON library where a database is expected says how to convert it.
func TestToolLibrarySettings(t *testing.T) {
	cfg := tinyConfig(t, t.TempDir())
	cfg.Tool.Library = LibraryConfig{Path: seedLibrary(t), K: 2, Grow: true, AutoApprove: true}
	var log bytes.Buffer
	r, err := Setup(context.Background(), cfg, &log)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if !strings.Contains(log.String(), "tool library: auto-approving grown tools\n") {
		t.Errorf("the log does not say grown tools are auto-approved:\n%s", log.String())
	}
	cfg.Tool.Library = LibraryConfig{Path: filepath.Join(t.TempDir(), "tools.json"), K: 2}
	if _, err := Setup(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), "artist tools import") {
		t.Errorf("Setup with a JSON library: %v, want the import command named", err)
	}
}
