package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/artist-rl/artist/trainer"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint `DIR` (a run's checkpoints/step-NNNNNN)")
	n := fs.Int("n", 1, "samples per task (pass@1 is their mean)")
	temp := fs.Float64("temperature", 1, "sampling temperature; 0 is greedy")
	limit := fs.Int("limit", 0, "evaluate the first N held-out tasks (0: all)")
	var overrides sets
	fs.Var(&overrides, "set", "override one key of the checkpoint's config (repeatable)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *ckpt == "" {
		fmt.Fprintln(stderr, "artist eval: -checkpoint DIR is required")
		return errUsage
	}
	if *n < 1 || *temp < 0 || *limit < 0 {
		fmt.Fprintln(stderr, "artist eval: -n must be >= 1, -temperature >= 0 and -limit >= 0")
		return errUsage
	}
	r, err := trainer.OpenCheckpoint(*ckpt, overrides, stderr)
	if err != nil {
		return err
	}
	tasks := r.Heldout
	if *limit > 0 && *limit < len(tasks) {
		tasks = tasks[:*limit]
	}
	res, _, err := r.Evaluate(ctx, tasks, *n, *temp)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(b))
	return nil
}
