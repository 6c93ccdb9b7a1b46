package main

import (
	"context"
	"flag"
	"fmt"
	"io"

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
	fmt.Fprintf(stdout, "view: %s\n", viewCommand(cfg.RunDir))
	sum, err := trainer.Train(ctx, cfg, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "summary: %s/summary.json: held-out accuracy %.3f -> %.3f, tool calls %.2f -> %.2f, %.0fs\n",
		cfg.RunDir, sum.WarmStart.Accuracy, sum.Final.Accuracy, sum.WarmStart.ToolCalls, sum.Final.ToolCalls, sum.WallS)
	return nil
}
