package trainer

import (
	"fmt"
	"slices"
	"strings"
)

// AdvantageFunc turns the rewards of consecutive groups of groupSize
// rollouts into one advantage per rollout, and counts the groups with zero
// reward spread. It has GroupAdvantages' contract.
type AdvantageFunc func(rewards []float64, groupSize int, eps float64) ([]float64, int)

// AdvantageInput is a step's batch as an estimator sees it: Rewards holds
// len(Rewards)/GroupSize consecutive groups of GroupSize rollouts of one
// prompt each. Only Rewards, GroupSize and Eps are always set; the
// training step also sets Tokens, and Components and Weights for an
// estimator registered with RegisterComponentEstimator.
type AdvantageInput struct {
	Rewards   []float64 // total reward R_i of each rollout
	GroupSize int       // rollouts per prompt, G
	Eps       float64   // grpo.adv_eps, the ε of divisions by a group's std
	// Tokens[i] counts rollout i's loss tokens. Estimators that normalise
	// over the whole batch weigh each rollout by it, as verl's
	// masked_whiten does over the tokens of a batch; nil weighs every
	// rollout 1.
	Tokens []int
	// Components[k][i] is reward component k of rollout i (0 where the
	// component does not apply), and Weights[k] its weight in the
	// composite, so that R_i = Σ_k Weights[k]·Components[k][i]. nil when
	// the caller has only the totals.
	Components [][]float64
	Weights    []float64
}

// EstimatorFunc is the general form of an advantage estimator: it reads
// what it needs of in and returns one advantage per rollout and the
// number of groups whose total rewards have zero spread (for
// reward/frac_zero_std). It panics when in is malformed: the caller built
// the batch wrong.
type EstimatorFunc func(in AdvantageInput) ([]float64, int)

// advEntry is a registered estimator; components marks those that need
// AdvantageInput.Components.
type advEntry struct {
	fn         EstimatorFunc
	components bool
}

var advRegistry = newRegistry[advEntry]("advantage estimator")

func init() {
	RegisterAdvantage("grpo", func(r []float64, g int, eps float64) ([]float64, int) {
		return GroupAdvantages(r, g, true, eps)
	})
	RegisterAdvantage("drgrpo", func(r []float64, g int, eps float64) ([]float64, int) {
		return GroupAdvantages(r, g, false, eps)
	})
	RegisterAdvantage("rloo", RLOOAdvantages)
	RegisterEstimator("reinforce_pp", func(in AdvantageInput) ([]float64, int) {
		return ReinforcePPAdvantages(in, false)
	})
	RegisterEstimator("reinforce_pp_baseline", func(in AdvantageInput) ([]float64, int) {
		return ReinforcePPAdvantages(in, true)
	})
	RegisterComponentEstimator("gdpo", GDPOAdvantages)
}

// RegisterAdvantage adds an advantage estimator of the rewards alone under
// name. Built in: "grpo" (std-scaled), "drgrpo" (mean-centred only) and
// "rloo" (leave-one-out). It panics on an empty name, a nil fn, or a name
// already registered, so two estimators can never silently shadow each
// other.
func RegisterAdvantage(name string, fn AdvantageFunc) {
	if fn == nil {
		panic("trainer: RegisterAdvantage needs a name and a function")
	}
	register(name, advEntry{fn: func(in AdvantageInput) ([]float64, int) {
		return fn(in.Rewards, in.GroupSize, in.Eps)
	}})
}

// RegisterEstimator adds an estimator that may read the token counts of
// AdvantageInput (built in: "reinforce_pp", "reinforce_pp_baseline"). It
// panics as RegisterAdvantage does.
func RegisterEstimator(name string, fn EstimatorFunc) {
	if fn == nil {
		panic("trainer: RegisterEstimator needs a name and a function")
	}
	register(name, advEntry{fn: fn})
}

// RegisterComponentEstimator adds an estimator that needs each rollout's
// reward components (AdvantageInput.Components; built in: "gdpo"). The
// training step must pass them: Estimate refuses to run it without. It
// panics as RegisterAdvantage does.
func RegisterComponentEstimator(name string, fn EstimatorFunc) {
	if fn == nil {
		panic("trainer: RegisterComponentEstimator needs a name and a function")
	}
	register(name, advEntry{fn: fn, components: true})
}

func register(name string, e advEntry) {
	if name == "" {
		panic("trainer: an advantage estimator needs a name")
	}
	advRegistry.add(name, e)
}

// Advantage returns the estimator registered under name as a function of
// the rewards alone, or an error that lists the valid names. An estimator
// that needs reward components is an error here (use Estimate); one that
// reads token counts sees none and weighs every rollout 1.
func Advantage(name string) (AdvantageFunc, error) {
	e, err := lookupAdvantage(name)
	if err != nil {
		return nil, err
	}
	if e.components {
		return nil, fmt.Errorf("trainer: advantage estimator %q needs each rollout's reward components: call Estimate with AdvantageInput.Components", name)
	}
	return func(r []float64, g int, eps float64) ([]float64, int) {
		return e.fn(AdvantageInput{Rewards: r, GroupSize: g, Eps: eps})
	}, nil
}

// NeedsComponents reports whether the estimator registered under name
// reads AdvantageInput.Components; false for an unknown name.
func NeedsComponents(name string) bool {
	e, err := lookupAdvantage(name)
	return err == nil && e.components
}

// Estimate runs the estimator registered under name on in. It returns an
// error for an unknown name, and for an estimator that needs reward
// components when in has none or their shape does not match the rewards.
func Estimate(name string, in AdvantageInput) ([]float64, int, error) {
	e, err := lookupAdvantage(name)
	if err != nil {
		return nil, 0, err
	}
	if e.components {
		if err := checkComponents(in); err != nil {
			return nil, 0, fmt.Errorf("trainer: advantage estimator %q: %w", name, err)
		}
	}
	adv, zero := e.fn(in)
	return adv, zero, nil
}

func checkComponents(in AdvantageInput) error {
	if len(in.Components) == 0 {
		return fmt.Errorf("no reward components given")
	}
	if len(in.Weights) != len(in.Components) {
		return fmt.Errorf("%d reward components but %d weights", len(in.Components), len(in.Weights))
	}
	for k, c := range in.Components {
		if len(c) != len(in.Rewards) {
			return fmt.Errorf("reward component %d has %d values for %d rollouts", k, len(c), len(in.Rewards))
		}
	}
	return nil
}

func lookupAdvantage(name string) (advEntry, error) {
	if e, ok := advRegistry.get(name); ok {
		return e, nil
	}
	plain := advRegistry.names(func(e advEntry) bool { return !e.components })
	comp := advRegistry.names(func(e advEntry) bool { return e.components })
	return advEntry{}, fmt.Errorf("trainer: unknown advantage estimator %q (valid: %s; with reward components: %s)",
		name, strings.Join(plain, ", "), strings.Join(comp, ", "))
}

// RewardComponents lays out each rollout's reward parts (the parts map of
// reward.Composite.Score, with "overlong" when the penalty is on) as
// AdvantageInput.Components and Weights: one row per component name,
// names sorted, 0 where a rollout lacks the part (a component that did
// not apply). A part's weight is weights[name], or 1 for a part not in
// weights (the overlong penalty enters the total unweighted), so that
// Σ_k Weights[k]·Components[k][i] is rollout i's total reward.
func RewardComponents(parts []map[string]float64, weights map[string]float64) ([][]float64, []float64) {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for n := range weights {
		add(n)
	}
	for _, p := range parts {
		for n := range p {
			add(n)
		}
	}
	slices.Sort(names)
	comps := make([][]float64, len(names))
	w := make([]float64, len(names))
	for k, n := range names {
		w[k] = 1
		if v, ok := weights[n]; ok {
			w[k] = v
		}
		comps[k] = make([]float64, len(parts))
		for i, p := range parts {
			comps[k][i] = p[n]
		}
	}
	return comps, w
}
