package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs/bfcl"
	"github.com/artist-rl/artist/internal/datadir"
)

// runBFCL dispatches the BFCL v3 multi-turn subcommands.
func runBFCL(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "replay" {
		fmt.Fprintln(stderr, "usage: artist bfcl replay -category base|miss_func|miss_param|long_context [-id ID] [-data DIR]")
		return errUsage
	}
	return runBFCLReplay(ctx, args[1:], stdout, stderr)
}

// runBFCLReplay replays the ground truth of a category and prints one
// conformance record (JSON) per entry.
func runBFCLReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bfcl replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	category := fs.String("category", "", "category: "+strings.Join(bfcl.Categories, ", "))
	id := fs.String("id", "", "replay only this entry id")
	data := fs.String("data", "", dataFlagUsage)
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "artist bfcl replay: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if !slices.Contains(bfcl.Categories, *category) {
		fmt.Fprintf(stderr, "artist bfcl replay: -category must be one of %s\n", strings.Join(bfcl.Categories, ", "))
		return errUsage
	}
	dir, root, src := benchmarkFolder(*data, "bfcl_v3", "BFCL_v3_multi_turn_base.json", stderr)
	d, err := bfcl.Load(dir)
	if err != nil {
		return datadir.Explain(err, root, src)
	}
	entries, err := d.Entries(*category)
	if err != nil {
		return datadir.Explain(err, root, src)
	}
	w := bufio.NewWriter(stdout)
	found := false
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if *id != "" && e.ID != *id {
			continue
		}
		found = true
		rec, err := bfcl.Replay(d, e)
		if err != nil {
			return err
		}
		line, err := bfcl.PyJSONUnicode(rec)
		if err != nil {
			return fmt.Errorf("%s: %w", e.ID, err)
		}
		fmt.Fprintln(w, line)
	}
	if *id != "" && !found {
		return fmt.Errorf("no entry %q in category %s", *id, *category)
	}
	return w.Flush()
}
