package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/library"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/trainer"
)

// shortLibrary holds demonstrations short enough for the tiny
// checkpoint's context.
const shortLibrary = `{"id":"add","family":"arith","description":"add","input":"Add 2 and 3.","steps":[{"thought":"2 + 3"}],"answer":"5"}
{"id":"mul","family":"arith","description":"multiply","input":"6 times 7?","steps":[{"thought":"6 * 7"}],"answer":"42"}
{"id":"rev","family":"strings","description":"reverse","input":"Reverse ab.","steps":[],"answer":"ba"}
`

// TestEvalSelectEmbed evaluates the tiny checkpoint with demonstrations
// ranked by its own embeddings, and checks the flags reach the run: its
// prompts hold the demonstrations the checkpoint's embeddings rank first.
func TestEvalSelectEmbed(t *testing.T) {
	ckpt := tinyCheckpoint(t)
	short := filepath.Join(t.TempDir(), "short.jsonl")
	if err := os.WriteFile(short, []byte(shortLibrary), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("eval", "-checkpoint", ckpt, "-prompting", "art", "-library", short, "-k", "1", "-select", "embed", "-limit", "2", "-temperature", "0")
	var res struct{ N int }
	if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.N != 2 {
		t.Fatalf("eval: exit %d: %s%s", code, stdout, stderr)
	}

	f := evalFlags{prompting: "art", library: short, demoK: 1, demoSelect: "embed"}
	if err := promptingSets(&f, io.Discard); err != nil {
		t.Fatal(err)
	}
	r, err := trainer.OpenCheckpoint(context.Background(), ckpt, f.sets, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Cfg.Prompt.Demos.Select; got != "embed" {
		t.Fatalf("prompt.demos.select %q, want embed", got)
	}
	lib, err := library.Load(short)
	if err != nil {
		t.Fatal(err)
	}
	ix := library.NewEmbedIndex(lib, trainer.PolicyEmbedder{Model: r.Model, Tokenizer: r.Tok})
	eng := r.Engine(rollout.DefaultConfig())
	for _, task := range r.Heldout[:2] {
		ms, err := ix.Select(context.Background(), r.Cfg.Task.Name, task.Prompt, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := library.Prefix(ms, r.Cfg.Format, library.SyntaxTags)
		if got, err := eng.Prompt(context.Background(), task); err != nil || !strings.HasPrefix(got, want) {
			t.Errorf("task %s: prompt %q, want it to start with %q", task.ID, got, want)
		}
	}
}

func TestEvalSelectErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-checkpoint", "c", "-select", "embed"}, "-select needs -prompting art"},
		{[]string{"-checkpoint", "c", "-prompting", "art", "-library", libFixture, "-select", "cosine"}, `-select "cosine": want bm25 or embed`},
		{[]string{"-bench", "amc23", "-policy", "http://127.0.0.1:1", "-prompting", "art", "-library", libFixture, "-select", "embed"}, "needs a local -checkpoint"},
	}
	for i, c := range cases {
		code, _, stderr := runCLI(append([]string{"eval"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("case %d: exit %d %q, want %q", i, code, stderr, c.want)
		}
	}
}
