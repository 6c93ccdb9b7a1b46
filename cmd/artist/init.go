package main

// artist init: a checkpoint of random weights sized by a model config,
// with another checkpoint's tokenizer, for benchmarks at real layer shapes.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/checkpoint"
	"github.com/artist-rl/artist/policy"
)

// initSettings are the flags of artist init.
type initSettings struct {
	modelConfig, tokenizer, out string
	layers, maxPosition         int
	seed                        int64
}

// runInit writes a model folder (the checkpoint layout artist serve,
// eval and bench load) whose weights are drawn as policy.New draws them
// from -seed: the same flags give the same files. The model's
// vocab_size becomes the tokenizer's, so that any checkpoint's tokenizer
// can stand in; -layers and -max-position override the config's.
func runInit(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s initSettings
	fs.StringVar(&s.modelConfig, "model-config", "", "HuggingFace `config.json` giving the model's shapes")
	fs.StringVar(&s.tokenizer, "tokenizer", "", "checkpoint or run `DIR` whose tokenizer files the model gets (a run folder: its latest checkpoint)")
	fs.StringVar(&s.out, "out", "", "folder to write (replaced when it exists)")
	fs.IntVar(&s.layers, "layers", 0, "keep this many decoder layers instead of the config's num_hidden_layers (0: the config's)")
	fs.IntVar(&s.maxPosition, "max-position", 0, "set max_position_embeddings to this (0: the config's)")
	fs.Int64Var(&s.seed, "seed", 1, "seed of the random weights")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if s.modelConfig == "" || s.tokenizer == "" || s.out == "" {
		fmt.Fprintln(stderr, "artist init: give -model-config FILE, -tokenizer DIR and -out DIR")
		return errUsage
	}
	if s.layers < 0 || s.maxPosition < 0 {
		return fmt.Errorf("-layers %d, -max-position %d: give counts >= 1, or 0 to keep the config's", s.layers, s.maxPosition)
	}
	return initCheckpoint(s, stdout, stderr)
}

// initCheckpoint builds and writes the model of s.
func initCheckpoint(s initSettings, stdout, stderr io.Writer) error {
	b, err := os.ReadFile(s.modelConfig)
	if err != nil {
		return err
	}
	var cfg policy.Config
	if err := json.Unmarshal(b, &cfg); err != nil {
		return fmt.Errorf("%s: %w", s.modelConfig, err)
	}
	dir, err := checkpoint.Resolve(s.tokenizer, stderr)
	if err != nil {
		return err
	}
	tok, err := policy.LoadTokenizer(filepath.Join(dir, policy.TokenizerJSONFile))
	if err != nil {
		return fmt.Errorf("-tokenizer %s: %w", s.tokenizer, err)
	}
	if v := tok.VocabSize(); cfg.VocabSize != v {
		fmt.Fprintf(stderr, "artist init: vocab_size %d -> %d, the tokenizer's\n", cfg.VocabSize, v)
		cfg.VocabSize = v
	}
	if s.layers > 0 {
		cfg.NumHiddenLayers = s.layers
	}
	if s.maxPosition > 0 {
		cfg.MaxPositionEmbeddings = s.maxPosition
	}
	m, err := policy.New(cfg, rand.New(rand.NewSource(s.seed)))
	if err != nil {
		return fmt.Errorf("%s: %w", s.modelConfig, err)
	}
	if err := checkpoint.WriteWeights(s.out, m, tok); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: random weights (seed %d), %d layers, hidden %d, vocab %d, %d parameters\n",
		s.out, s.seed, cfg.NumHiddenLayers, cfg.HiddenSize, cfg.VocabSize, m.NumParams())
	return nil
}
