package trainer

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/library"
	"github.com/artist-rl/artist/rollout"
)

const demoFixture = "../envs/library/testdata/demos.jsonl"

func TestDemosConfigErrors(t *testing.T) {
	cases := []struct {
		sets []string
		want string
	}{
		{[]string{"prompt.demos.library=missing.jsonl"}, "config: prompt.demos.library: stat missing.jsonl"},
		{[]string{"prompt.demos.library=" + demoFixture, "prompt.demos.k=0"}, "prompt.demos.k must be >= 1"},
		{[]string{"warmstart.library=missing.jsonl"}, "config: warmstart.library: stat missing.jsonl"},
	}
	for i, c := range cases {
		_, err := Parse(nil, "test", c.sets)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: err %v, want %q", i, err, c.want)
		}
	}
	if _, err := Parse(nil, "test", []string{"prompt.demos.library=" + demoFixture}); err != nil {
		t.Errorf("a library that exists: %v", err)
	}
}

// TestRolloutPromptHoldsDemos checks the engine's prompt: the selected
// demonstrations, then the task as the template renders it; without a
// library, the task alone.
func TestRolloutPromptHoldsDemos(t *testing.T) {
	cfg, err := Parse(nil, "test", []string{"prompt.demos.library=" + demoFixture, "prompt.demos.k=2"})
	if err != nil {
		t.Fatal(err)
	}
	art, err := OpenArtPrompt(cfg)
	if err != nil {
		t.Fatal(err)
	}
	task := envs.Task{ID: "t", Prompt: "A jar holds 40 coins. 12 are taken out. How many coins are left?"}
	want, err := os.ReadFile(filepath.Join("..", "envs", "library", "testdata", "prompt_tags.golden"))
	if err != nil {
		t.Fatal(err)
	}
	r := &Run{Cfg: cfg, art: art}
	if got := noErr[string](t)(r.rolloutPrompt(context.Background(), task)); got != string(want) {
		t.Errorf("prompt:\n%s\nwant:\n%s", got, want)
	}
	if got := noErr[string](t)(r.Engine(rollout.DefaultConfig()).Prompt(context.Background(), task)); got != string(want) {
		t.Errorf("the engine's prompt differs:\n%s", got)
	}
	plain := &Run{Cfg: DefaultConfig()}
	if got := noErr[string](t)(plain.rolloutPrompt(context.Background(), task)); got != task.Prompt+"\n" {
		t.Errorf("without a library: %q", got)
	}
}

// TestWarmStartFromExportedLibrary writes a run's generated warm-start
// library as a library file and trains from it instead: the
// demonstrations the warm start encodes are the same.
func TestWarmStartFromExportedLibrary(t *testing.T) {
	ctx := context.Background()
	cfg, err := Parse(nil, "test", []string{"warmstart.demos=40"})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := WarmStartDemos(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var recs []library.Demo
	tools := 0
	for i, d := range gen {
		rec, err := library.FromRollout(d, cfg.Format, "arith", "sandbox")
		if err != nil {
			t.Fatal(err)
		}
		rec.ID = rec.ID + "-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) // the draw may repeat a task
		recs = append(recs, rec)
		if d.UsesTool {
			tools++
		}
	}
	if tools == 0 || tools == len(gen) {
		t.Fatalf("%d of %d demonstrations call the tool: want both kinds", tools, len(gen))
	}
	path := filepath.Join(t.TempDir(), "warm.jsonl")
	if err := library.Write(path, recs); err != nil {
		t.Fatal(err)
	}
	cfg.WarmStart.Library = path
	got, err := WarmStartDemos(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(gen) {
		t.Fatalf("%d demonstrations from the library, %d generated", len(got), len(gen))
	}
	for i := range gen {
		g, w := got[i], gen[i]
		if g.Task.Prompt != w.Task.Prompt || g.Task.Answer != w.Task.Answer || g.UsesTool != w.UsesTool || !reflect.DeepEqual(g.Segments, w.Segments) {
			t.Errorf("case %d: from the library %+v, generated %+v", i, g, w)
		}
	}
}

// noErr returns a function that passes a value through, failing t when
// the error beside it is not nil: noErr[string](t)(f()).
func noErr[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
