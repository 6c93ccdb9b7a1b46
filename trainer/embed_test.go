package trainer

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/library"
)

func TestDemosSelectConfig(t *testing.T) {
	cases := []struct {
		sets []string
		want string // error; empty: valid
	}{
		{[]string{"prompt.demos.select=cosine"}, `config: prompt.demos.select "cosine": want bm25 or embed`},
		{[]string{"prompt.demos.select=embed"}, ""},
		{[]string{"prompt.demos.select=bm25", "prompt.demos.library=" + demoFixture}, ""},
		{[]string{`prompt.demos.select=""`}, ""},
	}
	for i, c := range cases {
		_, err := Parse(nil, "test", c.sets)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d: %v", i, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("case %d: err %v, want %q", i, err, c.want)
		}
	}
	if got := DefaultConfig().Prompt.Demos.Select; got != "bm25" {
		t.Errorf("default prompt.demos.select %q, want bm25", got)
	}
}

// TestOpenArtPromptRefusesEmbed: without the run's model there is
// nothing to embed with.
func TestOpenArtPromptRefusesEmbed(t *testing.T) {
	cfg, err := Parse(nil, "test", []string{"prompt.demos.library=" + demoFixture, "prompt.demos.select=embed"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenArtPrompt(cfg); err == nil || !strings.Contains(err.Error(), "needs a local model") {
		t.Errorf("err %v, want one saying embed needs a local model", err)
	}
}

// TestPolicyEmbedderSelects sets up a tiny run that selects by its own
// embeddings: the embedder is deterministic, identical texts score
// cosine 1, a text past the context is cut, and the engine's prompt
// holds the k demonstrations the embedding index ranks first.
func TestPolicyEmbedderSelects(t *testing.T) {
	cfg := tinyConfig(t, t.TempDir())
	cfg.WarmStart.Steps, cfg.GRPO.Steps = 0, 0
	cfg.Model.MaxPositionEmbeddings = 512 // room for the demonstrations
	cfg.Prompt.Demos = DemosConfig{Library: demoFixture, K: 2, Select: "embed"}
	r, err := Setup(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e := PolicyEmbedder{Model: r.Model, Tokenizer: r.Tok}
	text := "Ann has 12 apples and buys 30 more."
	ctx := context.Background()
	vec := noErr[[]float32](t)
	a, b := vec(e.Embed(ctx, text)), vec(e.Embed(ctx, strings.Clone(text)))
	if !reflect.DeepEqual(a, b) || len(a) != r.Model.Config.HiddenSize {
		t.Fatalf("two embeddings of one text differ or have the wrong size (%d, want %d)", len(a), r.Model.Config.HiddenSize)
	}
	if c := library.Cosine(a, b); math.Abs(c-1) > 1e-9 {
		t.Errorf("identical texts: cosine %v, want 1", c)
	}
	if c := library.Cosine(a, vec(e.Embed(ctx, "Reverse the word stop."))); c >= 1-1e-6 {
		t.Errorf("different texts: cosine %v, want below 1", c)
	}
	long := strings.Repeat("apples ", 4*r.Model.Config.MaxPositionEmbeddings)
	if got := vec(e.Embed(ctx, long)); len(got) != r.Model.Config.HiddenSize {
		t.Errorf("a text past the context: %d values", len(got))
	}

	lib, err := library.Load(demoFixture)
	if err != nil {
		t.Fatal(err)
	}
	task := envs.Task{ID: "t", Prompt: "A jar holds 40 coins. 12 are taken out. How many coins are left?"}
	want := library.Prefix(noErr[[]library.Match](t)(library.NewEmbedIndex(lib, e).Select(ctx, cfg.Task.Name, task.Prompt, 2)), cfg.Format, library.SyntaxTags) + task.Prompt
	if got := noErr[envs.Task](t)(r.art.Apply(ctx, task)).Prompt; got != want {
		t.Errorf("the run's prompt:\n%s\nwant:\n%s", got, want)
	}
	if got := strings.Count(noErr[string](t)(r.rolloutPrompt(ctx, task)), "<answer>"); got != 2 {
		t.Errorf("%d demonstrations before the task, want 2", got)
	}
}

// TestRunEmbedderFollowsTheModel: the run's embedder embeds with the
// model the run holds at each call, so a resume, which replaces Setup's
// model with the checkpoint's, embeds with the weights that train.
func TestRunEmbedderFollowsTheModel(t *testing.T) {
	cfg := tinyConfig(t, t.TempDir())
	cfg.WarmStart.Steps, cfg.GRPO.Steps = 0, 0
	r, err := Setup(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, text := context.Background(), "Ann has 12 apples and buys 30 more."
	vec := noErr[[]float32](t)
	e := runEmbedder{r}
	before := vec(e.Embed(ctx, text))
	other := r.Model.Clone()
	for _, p := range other.Params {
		for i := range p.Data {
			p.Data[i] *= 1.5
		}
	}
	r.Model = other
	want := vec(PolicyEmbedder{Model: other, Tokenizer: r.Tok}.Embed(ctx, text))
	if got := vec(e.Embed(ctx, text)); !reflect.DeepEqual(got, want) || reflect.DeepEqual(got, before) {
		t.Error("the run's embedder did not embed with the model the run now holds")
	}
}
