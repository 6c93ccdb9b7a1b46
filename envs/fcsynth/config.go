package fcsynth

import (
	"fmt"

	"github.com/artist-rl/artist/envs/bfcl"
)

// Config is the task.fcsynth section: generated conversations over the
// BFCL API ports, their calls run by tool.kind bfcl and judged by the
// official multi-turn checker.
type Config struct {
	// Data is the BFCL v3 folder whose function documentation the
	// prompts list (scripts/fetch-data.sh); only multi_turn_func_doc is
	// read. Default "data/bfcl_v3".
	Data string `yaml:"data"`
	// Train is the size of the training pool. Default 2000.
	Train int `yaml:"train"`
	// Heldout is the size of the held-out split. Default 200.
	Heldout int `yaml:"heldout"`
	// TrainSeed and HeldoutSeed draw the two splits; they must differ.
	// A training conversation equal to a held-out one is drawn again,
	// so the splits never overlap. Defaults 1 and 2.
	TrainSeed   int64 `yaml:"train_seed"`
	HeldoutSeed int64 `yaml:"heldout_seed"`
	// MaxTurns is the most user turns of a conversation (1 to 3); each
	// conversation draws its number of turns uniformly from 1 to
	// MaxTurns. Default 3.
	MaxTurns int `yaml:"max_turns"`
	// Functions is how many functions a prompt offers (2 to 8): those
	// the conversation calls, then others of its class, in a shuffled
	// order. Default 3.
	Functions int `yaml:"functions"`
	// Docs is how prompts list the functions: "signatures" (default, one
	// compact line each) or "json" (BFCL's documentation objects).
	Docs string `yaml:"docs"`
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Data: "data/bfcl_v3", Train: 2000, Heldout: 200, TrainSeed: 1, HeldoutSeed: 2,
		MaxTurns: 3, Functions: 3, Docs: bfcl.DocsSignatures}
}

// MaxTurnsLimit is the largest task.fcsynth.max_turns.
const MaxTurnsLimit = 3

// Validate names the first key that cannot run and the fix.
func (c Config) Validate() error {
	switch {
	case c.Data == "":
		return fmt.Errorf("fcsynth: task.fcsynth.data is empty: name the BFCL v3 folder whose multi_turn_func_doc the prompts list (see scripts/fetch-data.sh)")
	case c.Train < 1 || c.Heldout < 1:
		return fmt.Errorf("fcsynth: task.fcsynth.train and task.fcsynth.heldout must be >= 1, got %d and %d", c.Train, c.Heldout)
	case c.TrainSeed == c.HeldoutSeed:
		return fmt.Errorf("fcsynth: task.fcsynth.train_seed and task.fcsynth.heldout_seed are both %d: give the held-out split its own seed", c.TrainSeed)
	case c.MaxTurns < 1 || c.MaxTurns > MaxTurnsLimit:
		return fmt.Errorf("fcsynth: task.fcsynth.max_turns must be in [1, %d], got %d", MaxTurnsLimit, c.MaxTurns)
	case c.Functions < 2 || c.Functions > 8:
		return fmt.Errorf("fcsynth: task.fcsynth.functions must be in [2, 8], got %d", c.Functions)
	}
	if err := (bfcl.TaskOptions{Docs: c.Docs}).Validate(); err != nil {
		return fmt.Errorf("fcsynth: task.fcsynth.docs: %w", err)
	}
	return nil
}
