package toollib

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/atomicfile"
)

// Library is a tool database kept in a JSON file. It is safe for
// concurrent use. Changes stay in memory until Save.
type Library struct {
	path  string
	mu    sync.RWMutex
	tools map[string]entry
}

// entry is a tool and the search terms of its name and doc.
type entry struct {
	tool  Tool
	terms []string
}

// file is the JSON layout of a library.
type file struct {
	Tools []Tool `json:"tools"`
}

// Open reads the library at path. A missing file gives an empty library
// that Save will create; an unreadable or malformed file (unknown fields
// and duplicate names included) is an error naming the file.
func Open(path string) (*Library, error) {
	l := &Library{path: path, tools: map[string]entry{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, fmt.Errorf("toollib: open %s: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("toollib: open %s: %w", path, err)
	}
	for _, t := range f.Tools {
		if err := checkName(t.Name); err != nil {
			return nil, fmt.Errorf("toollib: open %s: %w", path, err)
		}
		if _, dup := l.tools[t.Name]; dup {
			return nil, fmt.Errorf("toollib: open %s: tool %s appears twice", path, t.Name)
		}
		l.tools[t.Name] = newEntry(t)
	}
	return l, nil
}

func newEntry(t Tool) entry {
	t.Cases = slices.Clone(t.Cases)
	return entry{tool: t, terms: append(words(t.Name), words(t.Doc)...)}
}

// Save writes the library to its file atomically, as indented JSON with
// the tools sorted by name.
func (l *Library) Save() error { return l.SaveAs(l.path) }

// SaveAs writes the library to path as Save does; the library's own file
// stays what Open named.
func (l *Library) SaveAs(path string) error {
	f := file{Tools: l.Tools()}
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // keep Go source readable: a < b, not a \u003c b
		return enc.Encode(f)
	})
	if err != nil {
		return fmt.Errorf("toollib: save: %w", err)
	}
	return nil
}

// Add verifies t in run and adds it. It rejects a tool whose Source does
// not parse as one documented func named t.Name (see ParseTool), a name
// already in the library, and a tool whose cases fail (see Verify). The
// cases verified are t.Cases, which may differ from the doc's examples.
func (l *Library) Add(ctx context.Context, run envs.Tool, t Tool) error {
	if err := checkName(t.Name); err != nil {
		return err
	}
	if p, err := ParseTool(t.Source); err != nil {
		return fmt.Errorf("toollib: add %s: %w", t.Name, err)
	} else if p.Name != t.Name {
		return fmt.Errorf("toollib: add %s: source declares %s", t.Name, p.Name)
	}
	if l.Has(t.Name) {
		return fmt.Errorf("toollib: add %s: a tool of that name is already in the library", t.Name)
	}
	if err := Verify(ctx, run, t); err != nil {
		return fmt.Errorf("toollib: add %s: %w", t.Name, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, dup := l.tools[t.Name]; dup { // added while verifying
		return fmt.Errorf("toollib: add %s: a tool of that name is already in the library", t.Name)
	}
	l.tools[t.Name] = newEntry(t)
	return nil
}

// Has reports whether a tool named name is in the library.
func (l *Library) Has(name string) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	_, ok := l.tools[name]
	return ok
}

// Tools returns copies of all tools, sorted by name.
func (l *Library) Tools() []Tool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]Tool, 0, len(l.tools))
	for _, e := range l.tools {
		t := e.tool
		t.Cases = slices.Clone(t.Cases)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Len returns the number of tools.
func (l *Library) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.tools)
}
