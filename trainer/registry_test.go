package trainer

import (
	"slices"
	"strings"
	"testing"
)

// remove drops name from r, so that a test can undo what it registered.
func (r *registry[T]) remove(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, name)
}

func TestRegistry(t *testing.T) {
	r := newRegistry[int]("number")
	r.add("b", 2)
	r.add("a", 1)
	r.add("c", 3)
	if v, ok := r.get("b"); !ok || v != 2 {
		t.Errorf("get(b) = %d, %v; want 2, true", v, ok)
	}
	if _, ok := r.get("z"); ok {
		t.Error("get(z) found a value")
	}
	if got := r.names(nil); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("names(nil) = %v", got)
	}
	odd := func(v int) bool { return v%2 == 1 }
	if got := r.names(odd); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("names(odd) = %v", got)
	}
	msg := grpoPanics(func() { r.add("a", 9) })
	if !strings.Contains(msg, `trainer: number "a" registered twice`) {
		t.Errorf("panic = %q", msg)
	}
	r.remove("a")
	if _, ok := r.get("a"); ok {
		t.Error("remove left a")
	}
}
