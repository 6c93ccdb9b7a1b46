package library

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/artist-rl/artist/internal/atomicfile"
)

// Demo is one demonstration: one line of a library file (see the package
// doc for the format).
type Demo struct {
	ID          string `json:"id"`
	Family      string `json:"family"`
	Description string `json:"description"`
	Input       string `json:"input"`
	Steps       []Step `json:"steps"`
	Answer      string `json:"answer"`
	// Line is the demonstration's line in its file (0 when it was not
	// read from one).
	Line int `json:"-"`
}

// Step is one step of a demonstration's program: a tool call with the
// result the tool returned, or a thought alone.
type Step struct {
	Thought string `json:"thought,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Call    string `json:"call,omitempty"`
	Result  string `json:"result,omitempty"`
}

// Calls reports whether the step runs a tool.
func (s Step) Calls() bool { return s.Tool != "" }

// Library is the demonstrations of one file, in file order.
type Library struct {
	Path  string // the file it was read from; labels errors
	Demos []Demo
}

// Load reads and checks the library file at path.
func Load(path string) (*Library, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads a library from r; name labels errors ("name:line: ...").
// Every line is decoded strictly and checked (Demo.check); ids must be
// unique.
func Parse(r io.Reader, name string) (*Library, error) {
	lib := &Library{Path: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	seen := map[string]int{}
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		d, err := decode(line)
		if err == nil {
			err = d.check()
		}
		if err == nil {
			if prev, ok := seen[d.ID]; ok {
				err = fmt.Errorf("id %q is already used on line %d: give each demonstration its own id", d.ID, prev)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("library: %s:%d: %w", name, n, err)
		}
		d.Line, seen[d.ID] = n, n
		lib.Demos = append(lib.Demos, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("library: %s: %w", name, err)
	}
	return lib, nil
}

// decode reads one line strictly: unknown fields and trailing data are
// errors.
func decode(line []byte) (Demo, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var d Demo
	if err := dec.Decode(&d); err != nil {
		return Demo{}, fmt.Errorf("not a demonstration: %w (fields: id, family, description, input, steps, answer; a step has thought, tool, call, result)", err)
	}
	if dec.More() {
		return Demo{}, errors.New("more than one JSON object on the line: write one demonstration a line")
	}
	return d, nil
}

// check requires what every demonstration needs: an id, a family, an
// input, an answer, and steps that either call a tool or only think.
func (d Demo) check() error {
	switch {
	case strings.TrimSpace(d.ID) == "":
		return errors.New("id is empty: name the demonstration")
	case d.Family == "":
		return fmt.Errorf("demonstration %s: family is empty: give the task family (task.name), e.g. arith", d.ID)
	case strings.TrimSpace(d.Input) == "":
		return fmt.Errorf("demonstration %s: input is empty: give the task as the policy reads it", d.ID)
	case d.Answer == "":
		return fmt.Errorf("demonstration %s: answer is empty: give the final answer", d.ID)
	}
	for i, s := range d.Steps {
		switch {
		case s.Tool == "" && (s.Call != "" || s.Result != ""):
			return fmt.Errorf("demonstration %s: step %d has a call or result but no tool: name the tool that runs it (e.g. sandbox)", d.ID, i+1)
		case s.Tool != "" && s.Call == "":
			return fmt.Errorf("demonstration %s: step %d names tool %s but has no call", d.ID, i+1, s.Tool)
		case s.Tool == "" && s.Thought == "":
			return fmt.Errorf("demonstration %s: step %d is empty: give a thought, or a tool, call and result", d.ID, i+1)
		}
	}
	return nil
}

// Find returns the demonstration called id.
func (l *Library) Find(id string) (Demo, bool) {
	for _, d := range l.Demos {
		if d.ID == id {
			return d, true
		}
	}
	return Demo{}, false
}

// Encode writes demos one JSON object a line, HTML left unescaped so
// code reads as written.
func Encode(w io.Writer, demos []Demo) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range demos {
		if err := enc.Encode(&demos[i]); err != nil {
			return fmt.Errorf("library: %w", err)
		}
	}
	return nil
}

// Write replaces the file at path with demos, atomically, after checking
// them as Parse would.
func Write(path string, demos []Demo) error {
	var b bytes.Buffer
	if err := Encode(&b, demos); err != nil {
		return err
	}
	if _, err := Parse(bytes.NewReader(b.Bytes()), path); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("library: %w", err)
	}
	return nil
}

// Append adds demos after those of the file at path (created when
// missing) and rewrites it atomically. A demonstration whose id the file
// already holds gets the first free id of the form ID-2, ID-3, ...; the
// ids written are returned.
func Append(path string, demos []Demo) ([]string, error) {
	var old []Demo
	if _, err := os.Stat(path); err == nil {
		lib, err := Load(path)
		if err != nil {
			return nil, err
		}
		old = lib.Demos
	}
	used := map[string]bool{}
	for _, d := range old {
		used[d.ID] = true
	}
	var ids []string
	for _, d := range demos {
		d.ID = freeID(d.ID, used)
		used[d.ID] = true
		ids = append(ids, d.ID)
		old = append(old, d)
	}
	return ids, Write(path, old)
}

func freeID(id string, used map[string]bool) string {
	if !used[id] {
		return id
	}
	for n := 2; ; n++ {
		if c := fmt.Sprintf("%s-%d", id, n); !used[c] {
			return c
		}
	}
}
