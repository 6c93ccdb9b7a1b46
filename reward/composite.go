package reward

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
)

// registry maps a component name, as written in config, to its constructor.
var registry = map[string]func(rollout.Format) Func{}

func init() {
	register("answer", Answer)
	register("format_relaxed", FormatRelaxed)
	register("format_strict", FormatStrict)
	register("tool_success", func(rollout.Format) Func { return ToolSuccess() })
}

// register adds a constructor; a duplicate name is a programmer error.
func register(name string, mk func(rollout.Format) Func) {
	if _, dup := registry[name]; dup {
		panic("reward: duplicate component " + name)
	}
	registry[name] = mk
}

// Names returns the valid component names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the component called name, reading tags from f. An
// unknown name or an invalid format is an error.
func Lookup(name string, f rollout.Format) (Func, error) {
	mk, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("reward: unknown component %q: valid names are %s", name, strings.Join(Names(), ", "))
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("reward: component %q: %w", name, err)
	}
	return mk(f), nil
}

// DefaultWeights are the paper's math weights: every component counts once,
// so the total is at most 2 + 0.5 + 0.5 + 1 = 4.
func DefaultWeights() map[string]float64 {
	return map[string]float64{"answer": 1, "format_relaxed": 1, "format_strict": 1, "tool_success": 1}
}

// Component is one named, weighted reward.
type Component struct {
	Name   string
	Func   Func
	Weight float64
}

// Composite is a weighted sum of components, in the order they are scored.
type Composite []Component

// NewComposite builds the composite named by weights (component name to
// weight), sorted by name so that scoring is deterministic. A zero weight
// keeps the component for logging, but it adds nothing to the total. It is
// an error to give no component, an unknown name, a weight that is NaN or
// infinite, or an invalid format.
func NewComposite(weights map[string]float64, f rollout.Format) (Composite, error) {
	if len(weights) == 0 {
		return nil, fmt.Errorf("reward: no components: give weights for some of %s", strings.Join(Names(), ", "))
	}
	c := make(Composite, 0, len(weights))
	for name, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("reward: weight of %q is %v: give a finite number", name, w)
		}
		fn, err := Lookup(name, f)
		if err != nil {
			return nil, err
		}
		c = append(c, Component{Name: name, Func: fn, Weight: w})
	}
	slices.SortFunc(c, func(a, b Component) int { return strings.Compare(a.Name, b.Name) })
	return c, nil
}

// Score returns the weighted sum of the components that apply, and the
// unweighted score of each of them by name. A component that does not apply
// is absent from parts and adds nothing.
func (c Composite) Score(t *rollout.Trajectory, task envs.Task) (total float64, parts map[string]float64) {
	parts = make(map[string]float64, len(c))
	for _, comp := range c {
		s, ok := comp.Func(t, task)
		if !ok {
			continue
		}
		parts[comp.Name] = s
		total += comp.Weight * s
	}
	return total, parts
}
