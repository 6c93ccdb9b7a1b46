package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/artist-rl/artist/collective"
	"github.com/artist-rl/artist/trainer"
)

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "YAML config `FILE` (keys not given keep their documented defaults)")
	var overrides sets
	fs.Var(&overrides, "set", "override one config key, e.g. -set grpo.steps=50 (repeatable)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *config == "" {
		fmt.Fprintln(stderr, "artist train: -config FILE is required, e.g. -config configs/tiny-tool-arith.yaml")
		return errUsage
	}
	cfg, err := trainer.Load(*config, overrides)
	if err != nil {
		return err
	}
	comm, err := collective.Open()
	if err != nil {
		return err
	}
	if comm.Rank() != 0 {
		stdout = io.Discard // rank 0 reports for the job
	}
	fmt.Fprintf(stdout, "view: %s\n", viewCommand(cfg.RunDir))
	sum, err := trainer.TrainOn(ctx, cfg, comm, stdout)
	if err != nil {
		if comm.Size() > 1 {
			// Ranks that are still in a collective call would wait for this
			// one forever: end the whole job.
			comm.Abort(1, fmt.Sprintf("artist train: %v", err))
		}
		return err
	}
	if err := comm.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "summary: %s/summary.json: held-out accuracy %.3f -> %.3f, tool calls %.2f -> %.2f, %.0fs\n",
		cfg.RunDir, sum.WarmStart.Accuracy, sum.Final.Accuracy, sum.WarmStart.ToolCalls, sum.Final.ToolCalls, sum.WallS)
	return nil
}
