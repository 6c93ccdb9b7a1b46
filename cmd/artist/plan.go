package main

// artist plan: the memory plan of a training run, without running it.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/artist-rl/artist/internal/memplan"
	"github.com/artist-rl/artist/policy"
	"github.com/artist-rl/artist/trainer"
)

func runPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "YAML config `FILE` of the run, as artist train takes it")
	var overrides sets
	fs.Var(&overrides, "set", "override one config key, e.g. -set rollout.group_size=2 (repeatable)")
	modelConfig := fs.String("model-config", "", "take the model's shape from this HuggingFace `config.json` instead of the config's init folder (weights not downloaded yet)")
	deviceMemory := fs.String("device-memory", "", "plan a GPU run on a device of this `SIZE` (e.g. 80GB, 141GB, 80e9), with the cuda backend's reserve, instead of on this machine's backend")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *config == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "artist plan: -config FILE is required and no arguments are taken, e.g. -config configs/artist-math-qwen2.5-7b.yaml -model-config configs/models/qwen2.5-7b.json -device-memory 80GB")
		return errUsage
	}
	dev, err := deviceOfSize(*deviceMemory)
	if err != nil {
		fmt.Fprintf(stderr, "artist plan: -device-memory: %v\n", err)
		return errUsage
	}
	cfg, err := trainer.Load(*config, overrides)
	if err != nil {
		return err
	}
	plan, err := planOfConfig(cfg, *modelConfig)
	if err != nil {
		return err
	}
	if dev == nil {
		dev = planDevice()
	}
	if err := checkPlanOn(stdout, plan, dev); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "the plan fits")
	return nil
}

// planOfConfig is trainPlan of cfg, with the model's shape from the
// config.json at modelConfig when that is not "" (a file, or a folder
// holding one) in place of the init folder's.
func planOfConfig(cfg trainer.Config, modelConfig string) (memplan.Plan, error) {
	if modelConfig != "" {
		mc, err := readShape(modelConfig)
		if err != nil {
			return memplan.Plan{}, err
		}
		cfg.Model.Config, cfg.Init = mc, ""
	}
	plan, err := trainPlan(cfg)
	if err != nil && modelConfig == "" {
		return plan, fmt.Errorf("%w (plan without the weights: give the model's shape with -model-config, a HuggingFace config.json)", err)
	}
	return plan, err
}

// readShape reads a model's shape from a config.json, or a folder
// holding one.
func readShape(path string) (policy.Config, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return policy.ReadConfig(path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return policy.Config{}, err
	}
	var c policy.Config
	if err := json.Unmarshal(b, &c); err != nil {
		return policy.Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if c.HiddenSize <= 0 || c.NumHiddenLayers <= 0 || c.VocabSize <= 0 || c.NumAttentionHeads <= 0 {
		return policy.Config{}, fmt.Errorf("%s: hidden_size, num_hidden_layers, vocab_size and num_attention_heads must be positive: give a HuggingFace config.json", path)
	}
	return c, nil
}
