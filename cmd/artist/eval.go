package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/envs/family"
	"github.com/artist-rl/artist/envs/library"
	"github.com/artist-rl/artist/evalbench"
	"github.com/artist-rl/artist/trainer"
)

// evalFlags are the flags of artist eval.
type evalFlags struct {
	ckpt, bench, data, out, url, model string
	api                                string // -policy: the endpoint kind
	n, limit                           int
	temp                               float64
	seed                               int64
	force                              bool // run past a memory plan that does not fit
	sets                               sets
	user                               userFlags // -user-policy, -user-model, -user-checkpoint
	clientFlags                                  // -api-key-env, -timeout, -retries of a -policy server
	parallel                           int
	prompting, library                 string // -prompting art: demonstrations of -library before each task
	demoK                              int
	demoSelect                         string   // -select: how -prompting art ranks them
	tool                               string   // -tool: the code tool's kind, tool.kind
	given                              []string // the flags set on the command line
}

// set reports whether the flag name was given on the command line.
func (f evalFlags) set(name string) bool { return slices.Contains(f.given, name) }

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	defer useUserModels()()
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f evalFlags
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	fs.Visit(func(fl *flag.Flag) { f.given = append(f.given, fl.Name) })
	if err := f.check(stderr); err != nil {
		return err
	}
	if f.ckpt != "" {
		ckpt, err := checkpoint.Resolve(f.ckpt, stderr)
		if err != nil {
			return err
		}
		f.ckpt = ckpt
		if err := checkInferencePlan(stderr, f.ckpt, f.n, f.force); err != nil {
			return err
		}
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

// register defines the flags of artist eval on fs.
func (f *evalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.ckpt, "checkpoint", "", "checkpoint `DIR` (a run's checkpoints/step-NNNNNN, or a run folder: its latest checkpoint)")
	fs.StringVar(&f.bench, "bench", "", "comma-separated `LIST` of benchmarks ("+strings.Join(evalbench.Names(), ",")+"); none: the run's held-out split")
	fs.StringVar(&f.data, "data", "", dataFlagUsage)
	fs.StringVar(&f.out, "out", "eval-results", "with -bench, write samples.jsonl and summary.json into `DIR`")
	fs.StringVar(&f.url, "policy", "", "with -bench, evaluate the OpenAI-compatible completions server at `URL` instead of the checkpoint's model")
	fs.StringVar(&f.model, "model", "", "model `NAME` sent to the -policy server")
	fs.IntVar(&f.n, "n", 1, "samples per task K (pass@1 is their mean); held-out default: the config's eval.samples")
	fs.Float64Var(&f.temp, "temperature", 1, "sampling temperature; 0 is greedy; held-out default: the config's eval.temperature (greedy by default), as training evaluates")
	fs.IntVar(&f.limit, "limit", 0, "evaluate the first N tasks of each set (0: all)")
	fs.Int64Var(&f.seed, "seed", 1, "with -bench, sampling seed")
	f.clientFlags.register(fs, "with -policy, ")
	fs.IntVar(&f.parallel, "parallel", 8, "with -policy, the most trajectories (so requests) in flight")
	fs.IntVar(&f.parallel, "concurrency", 8, "with -policy, the same as -parallel")
	fs.StringVar(&f.api, "api", "completions", "with -policy, the server's `API`: completions (our tag format on /v1/completions) or chat (/v1/chat/completions with native tool calls)")
	fs.StringVar(&f.prompting, "prompting", "", "`MODE`: art (the -k demonstrations of -library most similar to each task before it: ART prompting) or plain (none); default: as the config says (prompt.demos)")
	fs.StringVar(&f.library, "library", "", "with -prompting art, the task library `FILE`")
	fs.IntVar(&f.demoK, "k", 3, "with -prompting art, demonstrations per task")
	fs.StringVar(&f.demoSelect, "select", "", "with -prompting art, how demonstrations are ranked: `MODE` bm25 (default: words) or embed (the checkpoint's own hidden states; needs a local -checkpoint, not -policy)")
	fs.StringVar(&f.tool, "tool", "", "the code tool `KIND` that runs the policy's code: python (jailed python3, as the paper's policies write) or sandbox (Go in yaegi); default: the config's tool.kind")
	fs.Var(&f.sets, "set", "override one key of the checkpoint's config, or with -policy alone of the defaults, e.g. rollout.max_response_tokens=8000 (repeatable)")
	fs.BoolVar(&f.force, "force", false, "evaluate even when the memory plan exceeds the memory available")
	f.user.register(fs)
}

// check completes and checks the parsed flags: the user model's sets go
// before -set, and a bad combination is errUsage, explained on stderr.
func (f *evalFlags) check(stderr io.Writer) error {
	userSets, err := f.user.sets()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return errUsage
	}
	f.sets = append(userSets, f.sets...)
	if f.ckpt == "" && (f.bench == "" || f.url == "") {
		fmt.Fprintln(stderr, "artist eval: -checkpoint DIR is required (or -bench LIST with -policy URL)")
		return errUsage
	}
	if msg := f.badNumber(); msg != "" {
		fmt.Fprintln(stderr, "artist eval: "+msg)
		return errUsage
	}
	if err := promptingSets(f, stderr); err != nil {
		return err
	}
	if err := toolSets(f, stderr); err != nil {
		return err
	}
	if f.api != "completions" && f.api != "chat" {
		fmt.Fprintf(stderr, "artist eval: -api %q: want completions or chat\n", f.api)
		return errUsage
	}
	if f.api == "chat" && f.url == "" {
		fmt.Fprintln(stderr, "artist eval: -api chat needs -policy URL")
		return errUsage
	}
	if p := f.readKey(); p != "" {
		fmt.Fprintln(stderr, "artist eval: "+p)
		return errUsage
	}
	return nil
}

// badNumber names the first numeric flag out of its range, with the value
// given and the range, or returns "".
func (f *evalFlags) badNumber() string {
	checks := []struct {
		bad  bool
		flag string
		val  any
		want string
	}{
		{f.n < 1, "n", f.n, ">= 1"},
		{f.temp < 0, "temperature", f.temp, ">= 0 (0 is greedy)"},
		{f.limit < 0, "limit", f.limit, ">= 0 (0 is every task)"},
		{f.timeout <= 0, "timeout", f.timeout, "> 0"},
		{f.httpRetries < 0, "retries", f.httpRetries, ">= 0"},
		{f.parallel < 1, "parallel", f.parallel, ">= 1"},
	}
	for _, c := range checks {
		if c.bad {
			return fmt.Sprintf("-%s %v: must be %s", c.flag, c.val, c.want)
		}
	}
	return ""
}

// evalHeldout evaluates a checkpoint on its run's held-out split.
func evalHeldout(ctx context.Context, f evalFlags, stdout, stderr io.Writer) error {
	r, err := trainer.OpenCheckpoint(ctx, f.ckpt, f.sets, stderr)
	if err != nil {
		return err
	}
	defer r.Close()
	tasks := r.Heldout
	if f.limit > 0 && f.limit < len(tasks) {
		tasks = tasks[:f.limit]
	}
	n, temp, from := f.n, f.temp, "-n and -temperature"
	switch {
	case !f.set("n") && !f.set("temperature"):
		n, temp, from = r.Cfg.Eval.Samples, r.Cfg.Eval.Temperature, "the training evaluation's eval.samples and eval.temperature"
	case !f.set("n"):
		n, from = r.Cfg.Eval.Samples, "eval.samples and -temperature"
	case !f.set("temperature"):
		temp, from = r.Cfg.Eval.Temperature, "-n and eval.temperature"
	}
	fmt.Fprintf(stderr, "eval: %d held-out tasks of %s, %d samples each at temperature %g (%s)\n", len(tasks), r.Cfg.Task.Name, n, temp, from)
	res, _, err := r.Evaluate(ctx, tasks, n, temp)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(b))
	return nil
}

// promptingSets turns -prompting, -library, -k and -select into the config keys
// they stand for (prompt.demos), ahead of any -set.
func promptingSets(f *evalFlags, stderr io.Writer) error {
	if f.demoSelect != "" && f.prompting != "art" {
		fmt.Fprintln(stderr, "artist eval: -select needs -prompting art")
		return errUsage
	}
	switch f.prompting {
	case "":
		if f.library != "" {
			fmt.Fprintln(stderr, "artist eval: -library needs -prompting art")
			return errUsage
		}
		return nil
	case "plain":
		f.sets = append(sets{`prompt.demos.library=""`}, f.sets...)
		return nil
	case "art":
		if f.library == "" || f.demoK < 1 {
			fmt.Fprintln(stderr, "artist eval: -prompting art needs -library FILE and -k of at least 1")
			return errUsage
		}
		mode, err := library.ParseSelectMode(f.demoSelect)
		if err != nil {
			fmt.Fprintf(stderr, "artist eval: -select %q: want bm25 or embed\n", f.demoSelect)
			return errUsage
		}
		if mode == library.SelectEmbed && f.url != "" {
			fmt.Fprintln(stderr, "artist eval: -select embed ranks demonstrations by the policy's own hidden states, so it needs a local -checkpoint: drop -policy, or use -select bm25")
			return errUsage
		}
		lib, _ := json.Marshal(f.library) // a YAML string, whatever the path holds
		f.sets = append(sets{"prompt.demos.library=" + string(lib), fmt.Sprintf("prompt.demos.k=%d", f.demoK), "prompt.demos.select=" + string(mode)}, f.sets...)
		return nil
	}
	fmt.Fprintf(stderr, "artist eval: -prompting %q: want art or plain\n", f.prompting)
	return errUsage
}

// toolSets turns -tool into the config key it stands for (tool.kind),
// ahead of any -set; a kind other than python or sandbox is errUsage.
func toolSets(f *evalFlags, stderr io.Writer) error {
	switch f.tool {
	case "":
		return nil
	case family.PythonTool, family.SandboxTool:
		f.sets = append(sets{"tool.kind=" + f.tool}, f.sets...)
		return nil
	}
	fmt.Fprintf(stderr, "artist eval: -tool %q: want %s or %s\n", f.tool, family.PythonTool, family.SandboxTool)
	return errUsage
}
