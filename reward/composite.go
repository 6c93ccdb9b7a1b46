package reward

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/rollout"
	"github.com/artist-rl/artist/rollout/format"
)

// Env is what a component is built from: the rollout's format and what
// the task family supplies.
type Env struct {
	// Format names the tags of the rollout text; it must be valid.
	Format format.Format
	// Supplies are the values a task family provides for its components
	// (for example a bfcl.Scope: the data and category that the
	// function-calling rewards replay); a component takes the ones it
	// needs by type (see Supplied).
	Supplies []any
	// Components, when not empty, are the only names allowed: those of
	// the task family being judged. Unknown names are errors listing them.
	Components []string
}

// Constructor builds a component from an Env. It returns an error when
// the env lacks a supply the component needs.
type Constructor func(Env) (Func, error)

// registry maps a component name, as written in config, to its
// constructor; it is the one registry of every component.
var (
	regMu    sync.RWMutex
	registry = map[string]Constructor{}
)

func init() {
	Register("answer", func(e Env) (Func, error) { return Answer(e.Format), nil })
	Register("format_relaxed", func(e Env) (Func, error) { return FormatRelaxed(e.Format), nil })
	Register("format_strict", func(e Env) (Func, error) { return FormatStrict(e.Format), nil })
	Register("tool_success", func(Env) (Func, error) { return ToolSuccess(), nil })
}

// Register adds a component under name, the key of reward.weights. A
// duplicate name is a programmer error and panics.
func Register(name string, mk Constructor) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("reward: duplicate component " + name)
	}
	registry[name] = mk
}

// Names returns every registered component name, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Supplied returns the first of env's supplies of type T.
func Supplied[T any](env Env) (T, bool) {
	for _, s := range env.Supplies {
		if v, ok := s.(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// valid returns the names env allows, sorted.
func (env Env) valid() []string {
	if len(env.Components) == 0 {
		return Names()
	}
	return slices.Sorted(slices.Values(env.Components))
}

// check reports whether name is a component env allows.
func (env Env) check(name string) error {
	regMu.RLock()
	_, ok := registry[name]
	regMu.RUnlock()
	if !ok || len(env.Components) > 0 && !slices.Contains(env.Components, name) {
		return fmt.Errorf("reward: unknown component %q: valid names are %s", name, strings.Join(env.valid(), ", "))
	}
	return nil
}

// Lookup returns the component called name built from env. An unknown or
// disallowed name, an invalid format or a missing supply is an error.
func Lookup(name string, env Env) (Func, error) {
	if err := env.check(name); err != nil {
		return nil, err
	}
	if err := env.Format.Validate(); err != nil {
		return nil, fmt.Errorf("reward: component %q: %w", name, err)
	}
	regMu.RLock()
	mk := registry[name]
	regMu.RUnlock()
	fn, err := mk(env)
	if err != nil {
		return nil, fmt.Errorf("reward: component %q: %w", name, err)
	}
	return fn, nil
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

// CheckWeights checks weights (component name to weight) against env
// without building anything: at least one component, every name allowed,
// every weight finite. It is what a config checks before the family's
// supplies are loaded.
func CheckWeights(weights map[string]float64, env Env) error {
	if len(weights) == 0 {
		return fmt.Errorf("reward: no components: give weights for some of %s", strings.Join(env.valid(), ", "))
	}
	for _, name := range slices.Sorted(maps.Keys(weights)) {
		if w := weights[name]; math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("reward: weight of %q is %v: give a finite number", name, w)
		}
		if err := env.check(name); err != nil {
			return err
		}
	}
	return nil
}

// NewComposite builds the composite named by weights (component name to
// weight) from env, sorted by name so that scoring is deterministic. A
// zero weight keeps the component for logging, but it adds nothing to the
// total. It is an error to give no component, an unknown name, a weight
// that is NaN or infinite, an invalid format or too few supplies.
func NewComposite(weights map[string]float64, env Env) (Composite, error) {
	if err := CheckWeights(weights, env); err != nil {
		return nil, err
	}
	c := make(Composite, 0, len(weights))
	for name, w := range weights {
		fn, err := Lookup(name, env)
		if err != nil {
			return nil, err
		}
		c = append(c, Component{Name: name, Func: fn, Weight: w})
	}
	slices.SortFunc(c, func(a, b Component) int { return strings.Compare(a.Name, b.Name) })
	return c, nil
}

// Unit builds every component env allows (env.Components), each with
// weight 1: the record of each part that a benchmark keeps.
func Unit(env Env) (Composite, error) {
	w := map[string]float64{}
	for _, n := range env.Components {
		w[n] = 1
	}
	return NewComposite(w, env)
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

// Names lists the components' names, in order.
func (c Composite) Names() []string {
	out := make([]string, len(c))
	for i, comp := range c {
		out[i] = comp.Name
	}
	return out
}
