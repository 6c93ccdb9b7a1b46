package main

import (
	"context"
	"io"
	"net/http"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
	"github.com/artist-rl/artist/trainer"
)

// benchPolicy is a policy wired for benchmarks: the checkpoint's model
// (local engine) or a -policy server, with the config that sets its
// format, budgets, prompts and tools. Each benchmark gets the tool its
// family runs (evalbench.Bench.ToolKind); the generator is built for it.
type benchPolicy struct {
	cfg  trainer.Config
	ckpt *trainer.Run // the checkpoint's run; nil for a -policy server alone
	// newGen returns the generator with tool as its tool.
	newGen func(tool envs.Tool) evalbench.Generator
	// newChat, set with -api chat, returns the chat-server generator of
	// benchmark b, whose tool has the given kind.
	newChat func(tool envs.Tool, b *evalbench.Bench, kind string) (evalbench.Generator, error)
	code    map[string]envs.Tool // the code tools by kind (Go, Python), each built at its first use
	closers []func() error
}

// openBenchPolicy wires the policy: the checkpoint's model, or the
// -policy server with the checkpoint's format, budgets and prompt
// template, or, without a checkpoint, those of fam's benchmark defaults.
func openBenchPolicy(ctx context.Context, f evalFlags, fam family.Bencher, stderr io.Writer) (*benchPolicy, error) {
	if f.ckpt == "" {
		cfg, err := trainer.Parse([]byte(fam.BenchmarkDefaults()), "defaults of task "+fam.Name(), f.sets)
		if err != nil {
			return nil, err
		}
		rc := cfg.Rollout
		rc.Temperature = f.temp
		// Without the server's tokenizer the client renders with Qwen2.5's
		// template; a later user turn closes the assistant turn itself.
		c, err := trainer.OpenChat(cfg.Prompt, "", fam, nil)
		if err != nil {
			return nil, err
		}
		prompt, userTurn := trainer.RemotePrompts(c)
		art, err := trainer.OpenArtPrompt(cfg)
		if err != nil {
			return nil, err
		}
		p := &benchPolicy{cfg: cfg}
		p.newGen = func(tool envs.Tool) evalbench.Generator {
			return evalbench.Remote{Remote: &rollout.Remote{URL: f.url, Model: f.model, Client: httpClient(f), Tool: tool, Format: cfg.Format, Config: rc,
				Prompt: art.ForFamily(fam.Name()).Render(prompt), UserTurn: userTurn, Timeout: f.timeout, Retries: f.requestRetries(), Parallel: f.parallel}}
		}
		p.newChat = chatGenerator(f, cfg.Format, rc, cfg.Prompt.System, art)
		return p, nil
	}
	r, err := trainer.OpenCheckpoint(ctx, f.ckpt, f.sets, stderr)
	if err != nil {
		return nil, err
	}
	rc := r.Cfg.Rollout
	rc.Temperature = f.temp
	eng := r.Engine(rc)
	p := &benchPolicy{cfg: r.Cfg, ckpt: r, closers: []func() error{r.Close}}
	if f.url == "" {
		p.newGen = func(tool envs.Tool) evalbench.Generator {
			e := *eng
			e.Tool = tool
			return evalbench.Engine{Engine: &e}
		}
		return p, nil
	}
	p.newGen = func(tool envs.Tool) evalbench.Generator {
		return evalbench.Remote{Remote: &rollout.Remote{URL: f.url, Model: f.model, Client: httpClient(f), Tool: tool, Format: r.Cfg.Format, Config: rc,
			Tokenizer: r.Tok, Prompt: eng.Prompt, UserTurn: rollout.TextTurn(eng.UserTurn), Timeout: f.timeout, Retries: f.requestRetries(), Parallel: f.parallel}}
	}
	art, err := trainer.OpenArtPrompt(r.Cfg)
	if err != nil {
		return nil, err
	}
	p.newChat = chatGenerator(f, r.Cfg.Format, rc, r.Cfg.Prompt.System, art)
	return p, nil
}

// chatGenerator returns benchPolicy.newChat for -api chat (nil
// otherwise): a RemoteChat with the family's chat adapter; system, when
// set, is the system message of a code-tool task; art, when set, puts
// the selected demonstrations before each task (-prompting art).
func chatGenerator(f evalFlags, format format.Format, rc rollout.Config, system string, art *trainer.ArtPrompt) func(envs.Tool, *evalbench.Bench, string) (evalbench.Generator, error) {
	if f.api != "chat" {
		return nil
	}
	return func(tool envs.Tool, b *evalbench.Bench, kind string) (evalbench.Generator, error) {
		ad, err := chatAdapter(b, kind, system)
		if err != nil {
			return nil, err
		}
		if art != nil {
			ad = artChat{ad, art.ForFamily(b.Family.Name())}
		}
		return chatGen{&rollout.RemoteChat{URL: f.url, Model: f.model, APIKey: f.apiKey, Tool: tool, Format: format, Config: rc,
			Chat: ad, Timeout: f.timeout, Retries: f.requestRetries(), Parallel: f.parallel}}, nil
	}
}

// httpClient is the client of -policy requests: one that sends the
// -api-key-env key, or nil (the default) without one.
func httpClient(f evalFlags) *http.Client {
	if f.apiKey == "" {
		return nil
	}
	return &http.Client{Transport: bearer{key: f.apiKey, next: http.DefaultTransport}}
}

// tool returns the tool of the kind the benchmark's family runs
// (evalbench.Bench.ToolKind): for Go or Python code, the checkpoint run's
// own tool when it is of that kind (a Go tool library included), or one
// shared by the benchmarks; otherwise one that trainer.OpenTool builds
// for the benchmark's tasks.
func (p *benchPolicy) tool(b *evalbench.Bench) (envs.Tool, error) {
	c := p.cfg.Tool
	c.Kind = b.ToolKind(c.Kind)
	shared := c.Kind == family.SandboxTool || c.Kind == family.PythonTool
	switch {
	case shared && p.ckpt != nil && p.cfg.Tool.Kind == c.Kind:
		return p.ckpt.Tool, nil
	case shared && p.code[c.Kind] != nil:
		return p.code[c.Kind], nil
	}
	tool, closeTool, err := trainer.OpenTool(c, b.Set)
	if err != nil {
		return nil, err
	}
	if closeTool != nil {
		p.closers = append(p.closers, closeTool)
	}
	if shared {
		if p.code == nil {
			p.code = map[string]envs.Tool{}
		}
		p.code[c.Kind] = tool // shared by the benchmarks that run this language
	}
	return tool, nil
}

// close releases the tools' workers.
func (p *benchPolicy) close() {
	for _, c := range p.closers {
		c()
	}
}
