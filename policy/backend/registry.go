package backend

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// EnvVar names the environment variable that forces a backend by name.
// Unset, empty or "auto", the most preferred backend that opens is used.
const EnvVar = "ARTIST_BACKEND"

// Constructor opens a backend. It returns an error, which says what to
// install, when what the backend needs is absent from this machine.
type Constructor func() (Backend, error)

type entry struct {
	name       string
	preference int
	open       Constructor
	once       sync.Once
	b          Backend
	err        error
}

var (
	mu       sync.Mutex
	registry = map[string]*entry{}
)

// Register makes a backend available under name. The automatic choice
// tries backends from the highest preference down; pure Go registers
// preference 0, libraries higher. It panics when name is empty or already
// registered (a programmer error). Backends register from an init
// function.
func Register(name string, preference int, open Constructor) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || open == nil {
		panic("backend: Register needs a name and a constructor")
	}
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("backend: Register called twice for %q", name))
	}
	registry[name] = &entry{name: name, preference: preference, open: open}
}

// Names lists the registered backends, most preferred first.
func Names() []string {
	var names []string
	for _, e := range sorted() {
		names = append(names, e.name)
	}
	return names
}

func sorted() []*entry {
	mu.Lock()
	defer mu.Unlock()
	es := make([]*entry, 0, len(registry))
	for _, e := range registry {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *entry) int {
		if a.preference != b.preference {
			return b.preference - a.preference
		}
		return strings.Compare(a.name, b.name)
	})
	return es
}

// Open returns the backend registered under name, opening it on first
// use; later calls return the same backend or the same error.
func Open(name string) (Backend, error) {
	b, err := open(name)
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	return b, nil
}

func open(name string) (Backend, error) {
	mu.Lock()
	e := registry[name]
	mu.Unlock()
	if e == nil {
		return nil, fmt.Errorf("no backend named %q; registered: %s", name, strings.Join(Names(), ", "))
	}
	e.once.Do(func() { e.b, e.err = e.open() })
	return e.b, e.err
}

// ErrNoBackend is Select's error in a program that links no backend.
// Backends register from their packages' init functions, and libraries
// link none: the command does, e.g. with
//
//	import _ "github.com/artist-rl/artist/policy/backend/cpu"
//
// and so do the tests of packages that build models.
var ErrNoBackend = errors.New("backend: no backend is registered: the program must import a backend package, e.g. _ \"github.com/artist-rl/artist/policy/backend/cpu\"")

// Selection is the outcome of Select.
type Selection struct {
	Backend Backend
	Forced  bool    // named by ARTIST_BACKEND
	Skipped []error // why more preferred backends did not open (automatic choice)
}

// String describes the selection for a start-up line, e.g. "openblas, 1
// threads, kernels Haswell, libopenblas.so.0" or "go, 2 threads (openblas
// skipped: ...)".
func (s Selection) String() string {
	str := s.Backend.Info().String()
	if s.Forced {
		str += " (forced by " + EnvVar + ")"
	}
	for _, err := range s.Skipped {
		str += " (" + err.Error() + ")"
	}
	return str
}

// Select chooses the backend named by the environment variable
// ARTIST_BACKEND, or when it is unset, empty or "auto" the most preferred
// one that opens. A forced backend that cannot open is an error that says
// what to install; so is a name that is not registered.
func Select() (Selection, error) {
	name := strings.TrimSpace(os.Getenv(EnvVar))
	if name != "" && name != "auto" {
		b, err := open(name)
		if err != nil {
			return Selection{}, fmt.Errorf("backend: %s=%s: %w", EnvVar, name, err)
		}
		return Selection{Backend: b, Forced: true}, nil
	}
	var sel Selection
	if len(Names()) == 0 {
		return Selection{}, ErrNoBackend
	}
	for _, e := range sorted() {
		b, err := open(e.name)
		if err == nil {
			sel.Backend = b
			return sel, nil
		}
		sel.Skipped = append(sel.Skipped, err)
	}
	return Selection{}, fmt.Errorf("backend: no backend opens: %w", errors.Join(sel.Skipped...))
}
