package taubench

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/artist-rl/artist/internal/pyval"
)

// Domain names.
const (
	Airline = "airline"
	Retail  = "retail"
)

// collections lists each domain's database files (NAME.json), which are
// also the top-level keys of its database.
var collections = map[string][]string{
	Airline: {"flights", "reservations", "users"},
	Retail:  {"orders", "products", "users"},
}

// Domain is one domain's data as loaded from its folder: the database every
// episode starts from, and what the agent is shown (tools.json, wiki.md).
// A Domain is read-only after Load and safe for concurrent use; each
// episode works on its own copy (NewEnv).
type Domain struct {
	Name string
	// Tools is the tools.json text: the function schemas the agent is
	// given, in the reference order; the shipped copy (ShippedTools)
	// when the folder has none.
	Tools []byte
	// Wiki is the wiki.md text, the agent's system prompt. Empty when the
	// folder has none.
	Wiki string

	db    *pyval.Dict
	tools map[string]tool

	textsOnce sync.Once
	texts     map[string]map[string]string // see recordTexts
	sorted    map[string][]string
}

// Load reads a domain's folder: NAME.json for each collection of the
// domain (airline: flights, reservations, users; retail: orders, products,
// users), and tools.json and wiki.md when present; without tools.json
// the domain's shipped schemas (ShippedTools) stand in.
func Load(dir, name string) (*Domain, error) {
	colls, ok := collections[name]
	if !ok {
		return nil, fmt.Errorf("taubench: unknown domain %q: use %q or %q", name, Airline, Retail)
	}
	db := pyval.NewDict()
	for _, c := range colls {
		p := filepath.Join(dir, c+".json")
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("taubench: load %s database: %w (the folder needs %v as NAME.json)", name, err, colls)
		}
		v, err := pyval.DecodeJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("taubench: load %s: %w", p, err)
		}
		if _, ok := v.(*pyval.Dict); !ok {
			return nil, fmt.Errorf("taubench: load %s: the file must hold a JSON object keyed by record id", p)
		}
		db.Set(c, v)
	}
	d := &Domain{Name: name, db: db, tools: domainTools(name)}
	if raw, err := os.ReadFile(filepath.Join(dir, "tools.json")); err == nil {
		d.Tools = raw
	} else if raw, err := ShippedTools(name); err == nil {
		d.Tools = raw
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "wiki.md")); err == nil {
		d.Wiki = string(raw)
	}
	return d, nil
}

func domainTools(name string) map[string]tool {
	t := common()
	extra := airlineTools()
	if name == Retail {
		extra = retailTools()
	}
	for k, v := range extra {
		t[k] = v
	}
	return t
}
