package arith

import (
	"fmt"
	"math/rand"
	"slices"

	"github.com/artist-rl/artist/envs"
)

// maxChainEvalSize bounds ChainConfig.EvalSize; poolSize bounds it
// further so that held-out chains take at most a quarter of any step
// count's chains.
const maxChainEvalSize = 3000

// poolSize is the number of distinct chains of n steps whose first
// factor has d digits.
func poolSize(n int, d Digits) int {
	size := pow10(d.Max) - pow10(d.Min-1)
	for i := 0; i < n; i++ {
		size *= []int{90, 89, 90}[i]
	}
	return size
}

// ChainConfig, the section task.multistep, chooses the step counts, the
// size of the numbers and the held-out set of the multistep family.
type ChainConfig struct {
	// Steps are the step counts to draw from, each in [1, 3]: 1 is a
	// product, 2 adds a remainder, 3 adds a sum. Default [1, 2, 3].
	Steps []int `yaml:"steps"`
	// Digits bounds the digits of the first factor, each in [1, 9]
	// (min <= max). Default min 2, max 3.
	Digits Digits `yaml:"digits"`
	// EvalSize is the number of held-out tasks, 0 to 3000, spread evenly
	// over Steps. Default 150.
	EvalSize int `yaml:"eval_size"`
	// TrainSeed seeds the *rand.Rand that callers pass to Generator.Sample.
	// Default 1.
	TrainSeed int64 `yaml:"train_seed"`
	// EvalSeed seeds the held-out set. Default 2.
	EvalSeed int64 `yaml:"eval_seed"`
}

// DefaultChainConfig returns the documented defaults.
func DefaultChainConfig() ChainConfig {
	return ChainConfig{Steps: []int{1, 2, 3}, Digits: Digits{Min: 2, Max: 3}, EvalSize: 150, TrainSeed: 1, EvalSeed: 2}
}

// Validate reports the first invalid field, naming its key and the fix.
func (c ChainConfig) Validate() error {
	if len(c.Steps) == 0 {
		return fmt.Errorf("multistep: steps is empty; list one or more step counts in [1, %d]", MaxSteps)
	}
	for i, n := range c.Steps {
		if n < 1 || n > MaxSteps {
			return fmt.Errorf("multistep: steps has %d; each step count must be in [1, %d]", n, MaxSteps)
		}
		if slices.Contains(c.Steps[:i], n) {
			return fmt.Errorf("multistep: steps lists %d twice; list each step count once", n)
		}
	}
	if d := c.Digits; d.Min < 1 || d.Max > 9 || d.Min > d.Max {
		return fmt.Errorf("multistep: digits must have 1 <= min <= max <= 9, got min %d, max %d", d.Min, d.Max)
	}
	if c.EvalSize < 0 || c.EvalSize > maxChainEvalSize {
		return fmt.Errorf("multistep: eval_size must be in [0, %d], got %d", maxChainEvalSize, c.EvalSize)
	}
	for _, n := range c.Steps {
		share := (c.EvalSize + len(c.Steps) - 1) / len(c.Steps)
		if pool := poolSize(n, c.Digits); 4*share > pool {
			return fmt.Errorf("multistep: eval_size %d holds out %d of the %d problems of %d steps with digits %d-%d; lower eval_size or raise digits.max so that at most a quarter are held out",
				c.EvalSize, share, pool, n, c.Digits.Min, c.Digits.Max)
		}
	}
	return nil
}

// chainKey identifies a chain up to its wording.
type chainKey struct{ steps, a, b, c, d int }

func (p Chain) key() any { return chainKey{p.Steps, p.A, p.B, p.C, p.D} }

// NewChainSplit returns the training generator and the held-out tasks of
// cfg. The held-out tasks are drawn from cfg.EvalSeed, cycle through
// cfg.Steps in order and are distinct chains; the generator never returns
// one of them. The same config gives the same split.
func NewChainSplit(cfg ChainConfig) (train *Generator, heldout []envs.Task, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	steps, digits := slices.Clone(cfg.Steps), cfg.Digits
	draw := func(rng *rand.Rand, i int) drawn { return RandomChain(rng, steps[i], digits) }
	train, heldout = newSplit(len(steps), draw, cfg.EvalSize, cfg.EvalSeed)
	return train, heldout, nil
}
