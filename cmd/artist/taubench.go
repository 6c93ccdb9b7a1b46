package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/artist-rl/artist/envs/taubench"
	"github.com/artist-rl/artist/internal/datadir"
)

// taubenchSplits lists the task splits of each tau-bench domain.
var taubenchSplits = map[string][]string{
	taubench.Airline: {"test"},
	taubench.Retail:  {"test", "dev", "train"},
}

const taubenchUsage = "usage: artist taubench replay -env airline|retail [-split test|dev|train] [-index N] [-every K] [-data DIR]"

// runTauBench dispatches the tau-bench subcommands.
func runTauBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "replay" {
		fmt.Fprintln(stderr, taubenchUsage)
		return errUsage
	}
	return runTauBenchReplay(ctx, args[1:], stdout, stderr)
}

// runTauBenchReplay replays the gold actions of a split's tasks and
// prints one conformance record (JSON) per task.
func runTauBenchReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("taubench replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := fs.String("env", "", "domain: airline or retail")
	split := fs.String("split", "test", "task split: test (both domains), dev or train (retail)")
	index := fs.Int("index", -1, "replay only the task at this 0-based index")
	every := fs.Int("every", 1, "replay only the tasks whose index is a multiple of K (5 gives the visible conformance set)")
	data := fs.String("data", "", dataFlagUsage)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "artist taubench replay: unexpected argument %q\n%s\n", fs.Arg(0), taubenchUsage)
		return errUsage
	}
	splits, ok := taubenchSplits[*env]
	if !ok {
		fmt.Fprintf(stderr, "artist taubench replay: -env must be airline or retail\n%s\n", taubenchUsage)
		return errUsage
	}
	if !slices.Contains(splits, *split) {
		fmt.Fprintf(stderr, "artist taubench replay: -split for %s must be one of %v\n", *env, splits)
		return errUsage
	}
	if *every < 1 {
		fmt.Fprintln(stderr, "artist taubench replay: -every must be at least 1")
		return errUsage
	}
	dir, root, src := benchmarkFolder(*data, "tau_bench", *env, stderr)
	d, err := taubench.Load(filepath.Join(dir, *env), *env)
	if err != nil {
		return datadir.Explain(err, root, src)
	}
	tasks, err := taubench.LoadTasks(filepath.Join(dir, *env, "tasks_"+*split+".json"))
	if err != nil {
		return datadir.Explain(err, root, src)
	}
	if *index >= len(tasks) {
		return fmt.Errorf("taubench replay: -index %d is out of range: %s %s has %d tasks", *index, *env, *split, len(tasks))
	}
	only := func(i int) bool {
		return ctx.Err() == nil && (*index < 0 || i == *index) && i%*every == 0
	}
	if err := taubench.WriteRecords(stdout, d, *split, tasks, only); err != nil {
		return err
	}
	return ctx.Err()
}
