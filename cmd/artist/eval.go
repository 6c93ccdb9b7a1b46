package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/evalbench"
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
	fs.StringVar(&f.bench, "bench", "", "comma-separated `LIST` of benchmarks (math500,aime24,aime25,amc23,olympiad); none: the run's held-out split")
	fs.StringVar(&f.data, "data", "data", "benchmark data `DIR` (math500/test.jsonl, ...)")
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

// evalBench evaluates on math benchmarks and writes the table, the
// per-sample records and the summary.
func evalBench(ctx context.Context, f evalFlags, names []string, stdout, stderr io.Writer) error {
	gen, format, tool, err := benchGenerator(f, stderr)
	if err != nil {
		return err
	}
	if c, ok := tool.(io.Closer); ok {
		defer c.Close()
	}
	var all []evalbench.Sample
	var sums []evalbench.Summary
	for _, name := range names {
		tasks, err := evalbench.Load(f.data, name)
		if err != nil {
			return err
		}
		if f.limit > 0 && f.limit < len(tasks) {
			tasks = tasks[:f.limit]
		}
		opts := evalbench.Options{Bench: name, K: f.n, Format: format, Progress: progressTo(stderr, name)}
		samples, sum, err := evalbench.Run(ctx, gen, tasks, opts, rand.New(rand.NewSource(f.seed)))
		if err != nil {
			return err
		}
		all, sums = append(all, samples...), append(sums, sum)
	}
	evalbench.Table(stdout, sums)
	return evalbench.WriteOutputs(f.out, all, sums)
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

// benchGenerator wires the policy: the checkpoint's model, or the -policy
// server with the checkpoint's (or the default) format, budgets, prompt
// template and tool. The caller closes the tool.
func benchGenerator(f evalFlags, stderr io.Writer) (evalbench.Generator, rollout.Format, envs.Tool, error) {
	if f.ckpt == "" {
		cfg, err := trainer.Parse(nil, "defaults", f.sets)
		if err != nil {
			return nil, rollout.Format{}, nil, err
		}
		tool, err := benchTool(cfg.Tool)
		if err != nil {
			return nil, rollout.Format{}, nil, err
		}
		rc := cfg.Rollout
		rc.Temperature = f.temp
		rem := &rollout.Remote{URL: f.url, Model: f.model, Tool: tool, Format: cfg.Format, Config: rc, Prompt: cfg.Prompt.Render}
		return evalbench.Remote{Remote: rem}, cfg.Format, tool, nil
	}
	r, err := trainer.OpenCheckpoint(f.ckpt, f.sets, stderr)
	if err != nil {
		return nil, rollout.Format{}, nil, err
	}
	rc := r.Cfg.Rollout
	rc.Temperature = f.temp
	eng := r.Engine(rc)
	if f.url == "" {
		return evalbench.Engine{Engine: eng, Context: r.Model.Config.MaxPositionEmbeddings}, r.Cfg.Format, r.Tool, nil
	}
	rem := &rollout.Remote{URL: f.url, Model: f.model, Tool: r.Tool, Format: r.Cfg.Format, Config: rc, Tokenizer: r.Tok, Prompt: eng.Prompt}
	return evalbench.Remote{Remote: rem}, r.Cfg.Format, r.Tool, nil
}

// benchTool builds the code tool of a config.
func benchTool(c trainer.ToolConfig) (envs.Tool, error) {
	if c.Kind == "disabled" {
		return envs.Disabled{}, nil
	}
	sb, err := sandbox.New(c.Sandbox)
	if err != nil {
		return nil, err
	}
	return sb, nil
}
