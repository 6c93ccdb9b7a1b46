package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/trainer"
)

// evalFlags are the flags of artist eval.
type evalFlags struct {
	ckpt, bench, data, out, url, model string
	n, limit                           int
	temp                               float64
	seed                               int64
	sets                               sets
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f evalFlags
	fs.StringVar(&f.ckpt, "checkpoint", "", "checkpoint `DIR` (a run's checkpoints/step-NNNNNN)")
	fs.StringVar(&f.bench, "bench", "", "comma-separated `LIST` of benchmarks ("+strings.Join(evalbench.Names(), ",")+"); none: the run's held-out split")
	fs.StringVar(&f.data, "data", "data", "benchmark data `DIR` (math500/test.jsonl, bfcl_v3/, ...)")
	fs.StringVar(&f.out, "out", "eval-results", "with -bench, write samples.jsonl and summary.json into `DIR`")
	fs.StringVar(&f.url, "policy", "", "with -bench, evaluate the OpenAI-compatible completions server at `URL` instead of the checkpoint's model")
	fs.StringVar(&f.model, "model", "", "model `NAME` sent to the -policy server")
	fs.IntVar(&f.n, "n", 1, "samples per task K (pass@1 is their mean)")
	fs.Float64Var(&f.temp, "temperature", 1, "sampling temperature; 0 is greedy")
	fs.IntVar(&f.limit, "limit", 0, "evaluate the first N tasks of each set (0: all)")
	fs.Int64Var(&f.seed, "seed", 1, "with -bench, sampling seed")
	fs.Var(&f.sets, "set", "override one key of the checkpoint's config, or with -policy alone of the defaults, e.g. rollout.max_response_tokens=8000 (repeatable)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if f.ckpt == "" && (f.bench == "" || f.url == "") {
		fmt.Fprintln(stderr, "artist eval: -checkpoint DIR is required (or -bench LIST with -policy URL)")
		return errUsage
	}
	if f.n < 1 || f.temp < 0 || f.limit < 0 {
		fmt.Fprintln(stderr, "artist eval: -n must be >= 1, -temperature >= 0 and -limit >= 0")
		return errUsage
	}
	if f.bench == "" {
		if f.url != "" {
			fmt.Fprintln(stderr, "artist eval: -policy needs -bench")
			return errUsage
		}
		return evalHeldout(ctx, f, stdout, stderr)
	}
	names, err := evalbench.ParseNames(f.bench)
	if err != nil {
		return err
	}
	return evalBench(ctx, f, names, stdout, stderr)
}

// evalHeldout evaluates a checkpoint on its run's held-out split.
func evalHeldout(ctx context.Context, f evalFlags, stdout, stderr io.Writer) error {
	r, err := trainer.OpenCheckpoint(f.ckpt, f.sets, stderr)
	if err != nil {
		return err
	}
	defer r.Close()
	tasks := r.Heldout
	if f.limit > 0 && f.limit < len(tasks) {
		tasks = tasks[:f.limit]
	}
	res, _, err := r.Evaluate(ctx, tasks, f.n, f.temp)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(b))
	return nil
}

// evalBench evaluates on math and BFCL benchmarks and writes the table,
// the per-sample records and the summary (with the BFCL overall score
// when a BFCL category was evaluated).
func evalBench(ctx context.Context, f evalFlags, names []string, stdout, stderr io.Writer) error {
	gens := map[bool]*benchGen{}
	defer func() {
		for _, g := range gens {
			if g.close != nil {
				g.close()
			}
		}
	}()
	var all []evalbench.Sample
	var sums []evalbench.Summary
	for _, name := range names {
		_, fc := evalbench.BFCLCategory(name)
		g, ok := gens[fc]
		if !ok {
			var err error
			if g, err = benchGenerator(f, fc, stderr); err != nil {
				return err
			}
			gens[fc] = g
		}
		gen := g.gen
		opts := evalbench.Options{Bench: name, K: f.n, Format: g.cfg.Format, Progress: progressTo(stderr, name)}
		var tasks []envs.Task
		if fc {
			b, err := evalbench.LoadBFCL(f.data, name, g.cfg.Task.BFCL.Docs, trainer.FCFormatOf(g.cfg.Format))
			if err != nil {
				return err
			}
			tasks, gen, opts.Score = b.Tasks, withTool(gen, b.Tool), b.Score
		} else {
			var err error
			if tasks, err = evalbench.Load(f.data, name); err != nil {
				return err
			}
		}
		if f.limit > 0 && f.limit < len(tasks) {
			tasks = tasks[:f.limit]
		}
		samples, sum, err := evalbench.Run(ctx, gen, tasks, opts, rand.New(rand.NewSource(f.seed)))
		if err != nil {
			return err
		}
		all, sums = append(all, samples...), append(sums, sum)
	}
	if o, ok := evalbench.BFCLOverallSummary(sums); ok && countBFCL(names) > 1 {
		sums = append(sums, o)
	}
	evalbench.Table(stdout, sums)
	return evalbench.WriteOutputs(f.out, all, sums)
}

func countBFCL(names []string) int {
	n := 0
	for _, name := range names {
		if _, ok := evalbench.BFCLCategory(name); ok {
			n++
		}
	}
	return n
}

// withTool returns gen with its tool replaced.
func withTool(gen evalbench.Generator, tool envs.Tool) evalbench.Generator {
	switch g := gen.(type) {
	case evalbench.Engine:
		e := *g.Engine
		e.Tool = tool
		g.Engine = &e
		return g
	case evalbench.Remote:
		r := *g.Remote
		r.Tool = tool
		g.Remote = &r
		return g
	}
	panic(fmt.Sprintf("artist: withTool: unknown generator %T", gen))
}

// progressTo redraws one progress line on w, ending it when all is done.
func progressTo(w io.Writer, bench string) func(done, total int, elapsed time.Duration) {
	return func(done, total int, elapsed time.Duration) {
		end := ""
		if done == total {
			end = "\n"
		}
		fmt.Fprintf(w, "\r%s%s", evalbench.ProgressLine(bench, done, total, elapsed), end)
	}
}

// benchGen is a policy wired for benchmarks, with the config that set its
// format, budgets and prompts; the caller calls close when done (BFCL
// benchmarks replace its tool by their own).
type benchGen struct {
	gen   evalbench.Generator
	cfg   trainer.Config
	close func() error // releases the tool's workers; nil when there are none
}

// fcDefaults are the function-calling tags of the paper, the defaults of
// a -policy evaluation on BFCL without a checkpoint.
var fcDefaults = []string{"format.think=reasoning", "format.code=tool", "format.output=tool_result"}

// benchGenerator wires the policy: the checkpoint's model, or the -policy
// server with the checkpoint's (or the default) format, budgets, prompt
// template and tool. Without a checkpoint, fc selects the defaults of the
// BFCL benchmarks: the function-calling tags, and no code tool.
func benchGenerator(f evalFlags, fc bool, stderr io.Writer) (*benchGen, error) {
	if f.ckpt == "" {
		sets := f.sets
		if fc {
			sets = append(append(fcDefaults[:len(fcDefaults):len(fcDefaults)], "tool.kind=disabled"), f.sets...)
		}
		cfg, err := trainer.Parse(nil, "defaults", sets)
		if err != nil {
			return nil, err
		}
		tool, err := benchTool(cfg.Tool)
		if err != nil {
			return nil, err
		}
		rc := cfg.Rollout
		rc.Temperature = f.temp
		userTurn := cfg.Prompt.RenderTurn
		if cfg.Prompt.Template == "chat" {
			// Without the server's tokenizer the end-of-turn token's text is
			// not known to the client: close the assistant turn explicitly.
			userTurn = func(msg string) string { return policy.ImEnd + cfg.Prompt.RenderTurn(msg) }
		}
		rem := &rollout.Remote{URL: f.url, Model: f.model, Tool: tool, Format: cfg.Format, Config: rc,
			Prompt: cfg.Prompt.Render, UserTurn: userTurn}
		bg := &benchGen{gen: evalbench.Remote{Remote: rem}, cfg: cfg}
		if c, ok := tool.(io.Closer); ok {
			bg.close = c.Close
		}
		return bg, nil
	}
	r, err := trainer.OpenCheckpoint(f.ckpt, f.sets, stderr)
	if err != nil {
		return nil, err
	}
	rc := r.Cfg.Rollout
	rc.Temperature = f.temp
	eng := r.Engine(rc)
	bg := &benchGen{cfg: r.Cfg, close: r.Close}
	if f.url == "" {
		bg.gen = evalbench.Engine{Engine: eng, Context: r.Model.Config.MaxPositionEmbeddings}
		return bg, nil
	}
	rem := &rollout.Remote{URL: f.url, Model: f.model, Tool: r.Tool, Format: r.Cfg.Format, Config: rc, Tokenizer: r.Tok,
		Prompt: eng.Prompt, UserTurn: eng.UserTurn}
	bg.gen = evalbench.Remote{Remote: rem}
	return bg, nil
}

// benchTool builds the code tool of a config.
func benchTool(c trainer.ToolConfig) (envs.Tool, error) {
	if c.Kind == "disabled" || c.Kind == "bfcl" {
		return envs.Disabled{}, nil
	}
	sb, err := sandbox.New(c.Sandbox)
	if err != nil {
		return nil, err
	}
	return sb, nil
}
