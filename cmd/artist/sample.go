package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/trainer"
)

func runSample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint `DIR` (or a run folder: its latest checkpoint)")
	n := fs.Int("n", 4, "number of held-out tasks to roll out (ignored with -prompt)")
	prompt := fs.String("prompt", "", "roll out this question instead of held-out tasks")
	temp := fs.Float64("temperature", 1, "sampling temperature; 0 is greedy")
	seed := fs.Int64("seed", 1, "sampling seed")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *ckpt == "" {
		fmt.Fprintln(stderr, "artist sample: -checkpoint DIR is required")
		return errUsage
	}
	dir, err := checkpoint.Resolve(*ckpt, stderr)
	if err != nil {
		return err
	}
	r, err := trainer.OpenCheckpoint(ctx, dir, nil, stderr)
	if err != nil {
		return err
	}
	defer r.Close()
	tasks := r.Heldout[:min(max(*n, 1), len(r.Heldout))]
	if *prompt != "" {
		tasks = []envs.Task{{ID: "prompt", Prompt: *prompt}}
	}
	rc := r.Cfg.Rollout
	rc.GroupSize, rc.Temperature = 1, *temp
	trajs, err := r.Engine(rc).Run(ctx, tasks, rand.New(rand.NewSource(*seed)))
	if err != nil {
		return err
	}
	for _, t := range trajs {
		verdict := ""
		if t.Task.Answer != "" {
			verdict = fmt.Sprintf(", gold %s, correct %v", t.Task.Answer, r.Tasks.Judge(t).Correct)
		}
		fmt.Fprintf(stdout, "=== %s (stop %s, %d tool calls%s)\n%s\n\n", t.Task.ID, t.Stop, len(t.Calls), verdict, rollout.Text(t, r.Tok, true))
	}
	return nil
}
