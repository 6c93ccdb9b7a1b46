package trainer

import (
	"fmt"
	"slices"
	"sync"
)

// registry is a table of values by name, safe for concurrent use. kind
// names what it holds in its panics ("policy loss"). The zero value is
// not usable: build one with newRegistry.
type registry[T any] struct {
	kind string
	mu   sync.RWMutex
	m    map[string]T
}

// newRegistry returns an empty registry of kind.
func newRegistry[T any](kind string) *registry[T] {
	return &registry[T]{kind: kind, m: map[string]T{}}
}

// add registers v under name. It panics with "trainer: <kind> %q
// registered twice" on a name already registered; the caller checks the
// name and value themselves.
func (r *registry[T]) add(name string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[name]; dup {
		panic(fmt.Sprintf("trainer: %s %q registered twice", r.kind, name))
	}
	r.m[name] = v
}

// get returns the value registered under name, and whether there is one.
func (r *registry[T]) get(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.m[name]
	return v, ok
}

// names returns the names registered whose value keep accepts (nil keeps
// all), sorted; nil when none is.
func (r *registry[T]) names(keep func(T) bool) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for n, v := range r.m {
		if keep == nil || keep(v) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
