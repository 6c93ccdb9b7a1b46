package trainer

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/library"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// DemosConfig is ART prompting: before each task's prompt, the K
// demonstrations of a task library (envs/library) most similar to the
// task, selected by BM25 over their description and input (or by the
// policy's own embeddings, Select), with those of other task families
// filling in when too few of the task's own are similar. The
// demonstrations are written in the run's format (tag blocks, or ART's
// program lines under format.style: art), as the policy is to write its
// own solution. It applies to every rollout (training,
// evaluation, artist eval), not to the warm start's own demonstrations.
type DemosConfig struct {
	// Library is the library file (JSONL; artist library validate checks
	// it). Empty (default) prompts without demonstrations.
	Library string `yaml:"library"`
	// K is how many demonstrations each task gets. Default 3.
	K int `yaml:"k"`
	// Select is how demonstrations are ranked: bm25 (default; empty is
	// bm25) over words, or embed, by cosine similarity of the policy's
	// own embeddings (PolicyEmbedder); embed needs the run's local model,
	// and remote policies refuse it. A training run embeds the library
	// again with the current weights before each GRPO step's rollouts and
	// each evaluation, so the demonstrations and the task are always
	// embedded by the same policy.
	Select string `yaml:"select"`
}

func (d DemosConfig) validate() error {
	if _, err := library.ParseSelectMode(d.Select); err != nil {
		return fmt.Errorf("config: prompt.demos.select %q: want bm25 or embed", d.Select)
	}
	if d.Library == "" {
		return nil
	}
	if d.K < 1 {
		return fmt.Errorf("config: prompt.demos.k must be >= 1 with prompt.demos.library set, got %d", d.K)
	}
	if _, err := os.Stat(d.Library); err != nil {
		return fmt.Errorf("config: prompt.demos.library: %w: give a library file (artist library export writes one)", err)
	}
	return nil
}

// validateLibrary checks warmstart.library names a file.
func (w WarmStartConfig) validateLibrary() error {
	if w.Library == "" {
		return nil
	}
	if _, err := os.Stat(w.Library); err != nil {
		return fmt.Errorf("config: warmstart.library: %w: give a library file (artist library export writes one)", err)
	}
	return nil
}

// ArtPrompt puts a task library's demonstrations before each task (see
// DemosConfig). A nil *ArtPrompt leaves tasks as they are.
type ArtPrompt struct {
	index  *library.Index
	family string
	k      int
	format format.Format
}

// OpenArtPrompt loads the library of c.Prompt.Demos; it returns nil
// without one. It is the one demonstration step of every prompt: the
// run's engine, and the remote policies of artist eval. It selects by
// BM25; prompt.demos.select: embed needs the run's model (Setup) and is
// refused here.
func OpenArtPrompt(c Config) (*ArtPrompt, error) {
	if mode, _ := library.ParseSelectMode(c.Prompt.Demos.Select); mode == library.SelectEmbed && c.Prompt.Demos.Library != "" {
		return nil, fmt.Errorf("trainer: prompt.demos.select: embed ranks demonstrations by the policy's own hidden states, so it needs a local model (artist eval -checkpoint without -policy): use bm25 with a remote policy")
	}
	return openArtPrompt(c, nil)
}

// openArtPrompt is OpenArtPrompt with e as the embedder of
// prompt.demos.select: embed (nil under bm25).
func openArtPrompt(c Config, e library.Embedder) (*ArtPrompt, error) {
	d := c.Prompt.Demos
	if d.Library == "" {
		return nil, nil
	}
	lib, err := library.Load(d.Library)
	if err != nil {
		return nil, fmt.Errorf("trainer: prompt.demos.library: %w", err)
	}
	ix := library.NewIndex(lib)
	if mode, _ := library.ParseSelectMode(d.Select); mode == library.SelectEmbed {
		ix = library.NewEmbedIndex(lib, e)
	}
	return &ArtPrompt{index: ix, family: c.Task.Name, k: d.K, format: c.Format}, nil
}

// setupArtPrompt opens the run's demonstration step once its model and
// tokenizer are built: embed selection embeds with the run's model
// (runEmbedder), the one a resume loads included.
func (r *Run) setupArtPrompt() (err error) {
	r.art, err = openArtPrompt(r.Cfg, runEmbedder{r})
	return err
}

// runEmbedder is PolicyEmbedder over whatever model the run holds at each
// call: a resume replaces Setup's model with the checkpoint's, and the
// demonstrations must be embedded by the weights that train.
type runEmbedder struct{ r *Run }

// Embed is PolicyEmbedder's, with the run's current model.
func (e runEmbedder) Embed(ctx context.Context, text string) ([]float32, error) {
	return PolicyEmbedder{Model: e.r.Model, Tokenizer: e.r.Tok}.Embed(ctx, text)
}

// reembed has an embedding selection embed the library again with the
// policy's current weights (a no-op under bm25 or without a library).
// The trainer calls it before each GRPO step's rollouts and each
// evaluation, so demonstrations and tasks are always embedded by the same
// weights, and a resumed run embeds as an uninterrupted one.
func (a *ArtPrompt) reembed() {
	if a != nil {
		a.index.Reembed()
	}
}

// Apply returns t with the selected demonstrations before its prompt,
// each rendered in the run's format (library.SyntaxTags follows the
// format's style), or the selection's error (an embedding selection
// stops with ctx's).
func (a *ArtPrompt) Apply(ctx context.Context, t envs.Task) (envs.Task, error) {
	if a == nil {
		return t, nil
	}
	ms, err := a.index.Select(ctx, a.family, t.Prompt, a.k)
	if err != nil {
		return envs.Task{}, fmt.Errorf("trainer: prompt.demos: %w", err)
	}
	t.Prompt = library.Prefix(ms, a.format, library.SyntaxTags) + t.Prompt
	return t, nil
}

// ForFamily is a with the tasks taken as tasks of family name (a
// benchmark's family, when it is not the config's task). Nil stays nil.
func (a *ArtPrompt) ForFamily(name string) *ArtPrompt {
	if a == nil {
		return nil
	}
	b := *a
	b.family = name
	return &b
}

// Render is render after the demonstration step.
func (a *ArtPrompt) Render(render rollout.PromptFunc) rollout.PromptFunc {
	return func(ctx context.Context, t envs.Task) (string, error) {
		t, err := a.Apply(ctx, t)
		if err != nil {
			return "", err
		}
		return render(ctx, t)
	}
}

// rolloutPrompt renders a task for a rollout: the demonstrations, then
// the task as promptText renders it.
func (r *Run) rolloutPrompt(ctx context.Context, t envs.Task) (string, error) {
	return r.art.Render(rollout.Plain(r.promptText))(ctx, t)
}

// libraryDemos reads warmstart.library as the warm-start library: every
// demonstration of the file, in file order (library.ToRollout, in the
// run's format style).
func (r *Run) libraryDemos() ([]Demo, error) {
	lib, err := library.Load(r.Cfg.WarmStart.Library)
	if err != nil {
		return nil, fmt.Errorf("trainer: warmstart.library: %w", err)
	}
	if len(lib.Demos) == 0 {
		return nil, fmt.Errorf("trainer: warmstart.library %s holds no demonstrations", lib.Path)
	}
	demos := make([]Demo, len(lib.Demos))
	for i, d := range lib.Demos {
		demos[i] = library.ToRollout(d, r.Cfg.Format)
	}
	return demos, nil
}

// WarmStartDemos writes the warm-start library that a run of cfg trains
// on (the family's generated demonstrations, or warmstart.library), as
// Train would write it, without building a model.
func WarmStartDemos(ctx context.Context, cfg Config) ([]Demo, error) {
	r := &Run{Cfg: cfg, out: io.Discard, red: solo{}}
	if err := r.setupTasks(); err != nil {
		return nil, err
	}
	if cfg.Tokenizer != "" {
		if err := r.setupTokenizer(ctx); err != nil {
			return nil, err
		}
	}
	return r.demos(ctx)
}
