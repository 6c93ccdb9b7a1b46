package arith

import (
	"math/rand"
	"strings"
	"testing"
)

// TestSplitDisjoint: no training draw is a held-out problem, whatever its
// wording, and the held-out set is spread evenly over the step counts.
func TestChainSplitDisjoint(t *testing.T) {
	cfg := DefaultChainConfig()
	cfg.Digits = Digits{Min: 1, Max: 2} // a small pool, so collisions would show
	cfg.Steps = []int{1, 2}
	cfg.EvalSize = 400
	train, heldout, err := NewChainSplit(cfg)
	if err != nil {
		t.Fatal(err)
	}
	held := map[any]bool{}
	perSteps := map[int]int{}
	for _, task := range heldout {
		p, ok := parseChainID(task.ID)
		if !ok {
			t.Fatalf("held-out task %s has no problem", task.ID)
		}
		if held[p.key()] {
			t.Fatalf("problem %+v held out twice", p)
		}
		held[p.key()] = true
		perSteps[p.Steps]++
	}
	if perSteps[1] != 200 || perSteps[2] != 200 {
		t.Errorf("held-out step counts %v, want 200 each", perSteps)
	}
	// The pool of one-step problems is 99*90 = 8910; 40,000 draws would
	// hit almost every held-out one-step problem if the split leaked.
	rng := rand.New(rand.NewSource(5))
	seen := map[int]int{}
	for _, task := range train.Sample(rng, 40000) {
		p, _ := parseChainID(task.ID)
		if held[p.key()] {
			t.Fatalf("training drew held-out problem %s", task.ID)
		}
		seen[p.Steps]++
	}
	if seen[1] < 19000 || seen[2] < 19000 || seen[3] != 0 {
		t.Errorf("training step counts %v, want about half each of 1 and 2", seen)
	}
}

// TestSplitSeeds: the same config gives the same split; another eval seed
// another one.
func TestChainSplitSeeds(t *testing.T) {
	_, a, _ := NewChainSplit(DefaultChainConfig())
	_, b, _ := NewChainSplit(DefaultChainConfig())
	c2 := DefaultChainConfig()
	c2.EvalSeed = 9
	_, c, _ := NewChainSplit(c2)
	same, diff := 0, 0
	for i := range a {
		if a[i].ID == b[i].ID && a[i].Prompt == b[i].Prompt {
			same++
		}
		if a[i].ID == c[i].ID {
			diff++
		}
	}
	if same != len(a) || diff > len(a)/10 {
		t.Errorf("same config: %d/%d equal; other seed: %d equal", same, len(a), diff)
	}
}

// TestConfigValidate: every bad field is named with its fix.
func TestChainConfigValidate(t *testing.T) {
	cases := []struct {
		edit func(*ChainConfig)
		want string
	}{
		{func(c *ChainConfig) { c.Steps = nil }, "steps is empty"},
		{func(c *ChainConfig) { c.Steps = []int{1, 4} }, "steps has 4"},
		{func(c *ChainConfig) { c.Steps = []int{2, 2} }, "lists 2 twice"},
		{func(c *ChainConfig) { c.Digits = Digits{3, 2} }, "digits must have"},
		{func(c *ChainConfig) { c.Digits = Digits{0, 2} }, "digits must have"},
		{func(c *ChainConfig) { c.EvalSize = -1 }, "eval_size must be in"},
		{func(c *ChainConfig) { c.Steps, c.Digits, c.EvalSize = []int{1}, Digits{1, 1}, 300 }, "at most a quarter"},
	}
	for i, c := range cases {
		cfg := DefaultChainConfig()
		c.edit(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: %v, want an error containing %q", i, err, c.want)
		}
	}
	if err := DefaultChainConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
