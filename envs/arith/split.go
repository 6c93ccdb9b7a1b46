package arith

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
)

// maxEvalSize bounds Config.EvalSize so that training keeps most of every
// kind of problem: the rarest kind, divisions with a 2-digit quotient and
// divisor, has 8,100 problems and is drawn for a quarter of the divisions,
// so even the largest held-out set takes about a tenth of them.
const maxEvalSize = 10000

// Config, the section task.arith, chooses the operations and the
// held-out set of the arith family.
type Config struct {
	// Ops are the operations to draw from, any of "mul", "div", "mod".
	// Default all three.
	Ops []string `yaml:"ops"`
	// EvalSize is the number of held-out tasks, 0 to 10000. Default 200.
	EvalSize int `yaml:"eval_size"`
	// TrainSeed seeds the *rand.Rand that callers pass to Generator.Sample.
	// Default 1.
	TrainSeed int64 `yaml:"train_seed"`
	// EvalSeed seeds the held-out set. Default 2.
	EvalSeed int64 `yaml:"eval_seed"`
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Ops: []string{"mul", "div", "mod"}, EvalSize: 200, TrainSeed: 1, EvalSeed: 2}
}

// Validate reports the first invalid field, naming its key and the allowed
// values.
func (c Config) Validate() error {
	names := make([]string, len(allOps))
	for i, op := range allOps {
		names[i] = string(op)
	}
	if len(c.Ops) == 0 {
		return fmt.Errorf("arith: ops is empty; list one or more of %s", strings.Join(names, ", "))
	}
	for i, name := range c.Ops {
		if !slices.Contains(names, name) {
			return fmt.Errorf("arith: ops has unknown operation %q; allowed: %s", name, strings.Join(names, ", "))
		}
		if slices.Contains(c.Ops[:i], name) {
			return fmt.Errorf("arith: ops lists %q twice; list each operation once", name)
		}
	}
	if c.EvalSize < 0 || c.EvalSize > maxEvalSize {
		return fmt.Errorf("arith: eval_size must be in [0, %d], got %d", maxEvalSize, c.EvalSize)
	}
	return nil
}

// key identifies a problem up to its wording.
type key struct {
	op   Op
	a, b int
}

func (p Problem) key() any { return key{p.Op, p.A, p.B} }

// NewSplit returns the training generator and the held-out tasks of cfg.
// The held-out tasks are drawn from cfg.EvalSeed, cycle through cfg.Ops in
// order and have distinct (op, A, B); the generator never returns one of
// them. The same config gives the same split.
func NewSplit(cfg Config) (train *Generator, heldout []envs.Task, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	ops := make([]Op, len(cfg.Ops))
	for i, name := range cfg.Ops {
		ops[i] = Op(name)
	}
	draw := func(rng *rand.Rand, i int) drawn { return Random(rng, ops[i]) }
	train, heldout = newSplit(len(ops), draw, cfg.EvalSize, cfg.EvalSeed)
	return train, heldout, nil
}

// drawn is a generated problem as a split sees it: its task, and a key
// that tells two problems apart up to their wording.
type drawn interface {
	Task() envs.Task
	key() any
}

// Generator draws training tasks of one family's kinds (operations, step
// counts). It implements envs.Sampler and is safe for concurrent use with
// distinct rngs.
type Generator struct {
	kinds   int
	draw    func(rng *rand.Rand, kind int) drawn
	heldout map[any]bool
}

var _ envs.Sampler = (*Generator)(nil)

// newSplit draws size held-out problems from evalSeed, cycling through
// the kinds in order and skipping repeated keys, and returns them with
// the generator of every other problem.
func newSplit(kinds int, draw func(rng *rand.Rand, kind int) drawn, size int, evalSeed int64) (*Generator, []envs.Task) {
	g := &Generator{kinds: kinds, draw: draw, heldout: make(map[any]bool, size)}
	rng := rand.New(rand.NewSource(evalSeed))
	heldout := make([]envs.Task, 0, size)
	for len(heldout) < size {
		p := draw(rng, len(heldout)%kinds)
		if g.heldout[p.key()] {
			continue
		}
		g.heldout[p.key()] = true
		heldout = append(heldout, p.Task())
	}
	return g, heldout
}

// problem draws one training problem: the kind uniformly, then the
// kind's problem, redrawn while it is held out.
func (g *Generator) problem(rng *rand.Rand) drawn {
	for {
		p := g.draw(rng, rng.Intn(g.kinds))
		if !g.heldout[p.key()] {
			return p
		}
	}
}

// Sample implements envs.Sampler: n training tasks drawn from rng.
func (g *Generator) Sample(rng *rand.Rand, n int) []envs.Task {
	tasks := make([]envs.Task, n)
	for i := range tasks {
		tasks[i] = g.problem(rng).Task()
	}
	return tasks
}
