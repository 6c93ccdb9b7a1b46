package multistep

import (
	"fmt"
	"math/rand"
	"slices"

	"github.com/artist-rl/artist/envs"
)

// maxEvalSize bounds Config.EvalSize; poolSize bounds it further so that
// held-out problems take at most a quarter of any step count's problems.
const maxEvalSize = 3000

// poolSize is the number of distinct problems of n steps whose first
// factor has d digits.
func poolSize(n int, d Digits) int {
	size := pow10(d.Max) - pow10(d.Min-1)
	for i := 0; i < n; i++ {
		size *= []int{90, 89, 90}[i]
	}
	return size
}

// Config chooses the step counts, the size of the numbers and the
// held-out set.
type Config struct {
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

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Steps: []int{1, 2, 3}, Digits: Digits{Min: 2, Max: 3}, EvalSize: 150, TrainSeed: 1, EvalSeed: 2}
}

// Validate reports the first invalid field, naming its key and the fix.
func (c Config) Validate() error {
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
	if c.EvalSize < 0 || c.EvalSize > maxEvalSize {
		return fmt.Errorf("multistep: eval_size must be in [0, %d], got %d", maxEvalSize, c.EvalSize)
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

// key identifies a problem up to its wording.
type key struct{ steps, a, b, c, d int }

func (p Problem) key() key { return key{p.Steps, p.A, p.B, p.C, p.D} }

// Generator draws training tasks. It implements envs.Sampler and is safe
// for concurrent use with distinct rngs.
type Generator struct {
	steps   []int
	digits  Digits
	heldout map[key]bool
}

var _ envs.Sampler = (*Generator)(nil)

// NewSplit returns the training generator and the held-out tasks of cfg.
// The held-out tasks are drawn from cfg.EvalSeed, cycle through cfg.Steps
// in order and are distinct problems; the generator never returns one of
// them. The same config gives the same split.
func NewSplit(cfg Config) (train *Generator, heldout []envs.Task, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	g := &Generator{steps: slices.Clone(cfg.Steps), digits: cfg.Digits, heldout: make(map[key]bool, cfg.EvalSize)}
	rng := rand.New(rand.NewSource(cfg.EvalSeed))
	heldout = make([]envs.Task, 0, cfg.EvalSize)
	for len(heldout) < cfg.EvalSize {
		p := Random(rng, g.steps[len(heldout)%len(g.steps)], g.digits)
		if g.heldout[p.key()] {
			continue
		}
		g.heldout[p.key()] = true
		heldout = append(heldout, p.Task())
	}
	return g, heldout, nil
}

// Problem draws one training problem: the step count uniformly among the
// configured ones, then Random, redrawn while it is held out.
func (g *Generator) Problem(rng *rand.Rand) Problem {
	for {
		p := Random(rng, g.steps[rng.Intn(len(g.steps))], g.digits)
		if !g.heldout[p.key()] {
			return p
		}
	}
}

// Sample implements envs.Sampler: n training tasks drawn from rng.
func (g *Generator) Sample(rng *rand.Rand, n int) []envs.Task {
	tasks := make([]envs.Task, n)
	for i := range tasks {
		tasks[i] = g.Problem(rng).Task()
	}
	return tasks
}
