package main

// artist export: a checkpoint's weights in the layouts other tools load.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
)

// runExport writes a checkpoint's model to -out: with -merge the full
// weights, LoRA adapters folded in (W + alpha/r·B·A), in the checkpoint
// layout artist serve, eval and HuggingFace transformers load; without
// it the adapters alone in PEFT's layout (adapter_config.json,
// adapter_model.safetensors), for PEFT or vLLM --enable-lora over the
// base.
func runExport(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ckpt := fs.String("checkpoint", "", "checkpoint `DIR` (a run folder exports its latest checkpoint)")
	out := fs.String("out", "", "folder to write (replaced when it exists)")
	merge := fs.Bool("merge", false, "write the merged full weights (model.safetensors, config.json, tokenizer files, manifest.json) instead of the adapters alone")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *ckpt == "" || *out == "" {
		fmt.Fprintln(stderr, "artist export: give -checkpoint DIR and -out DIR")
		return errUsage
	}
	dir, err := checkpoint.Resolve(*ckpt, stderr)
	if err != nil {
		return err
	}
	ck, err := checkpoint.Open(dir, stderr)
	if err != nil {
		return err
	}
	if *merge {
		if err := checkpoint.WriteWeights(*out, ck.Model, ck.Tok); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the merged weights of %s to %s\n", dir, *out)
		return nil
	}
	if ck.Model.LoRA() == nil {
		return errors.New("the checkpoint has no LoRA adapters (no " + policy.AdapterConfigFile + "): add -merge to export its weights")
	}
	base, _ := filepath.Abs(dir)
	if err := policy.SaveAdapter(*out, ck.Model, base); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the LoRA adapters of %s to %s (PEFT layout, base %s)\n", dir, *out, base)
	return nil
}
