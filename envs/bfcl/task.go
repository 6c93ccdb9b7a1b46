package bfcl

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/artist-rl/artist/envs"
)

// Documentation styles of TaskOptions.Docs.
const (
	DocsJSON       = "json"
	DocsSignatures = "signatures"
)

// TaskOptions says how tasks present the functions.
type TaskOptions struct {
	// Docs is "json" (each function's documentation as BFCL gives it, one
	// JSON object per line, the way the official prompt lists them) or
	// "signatures" (one line per function: `name(param: type, opt: type =
	// default) - first sentence of the tool description`, compact for
	// small models). Empty means "json".
	Docs string
}

// Validate reports an unknown documentation style.
func (o TaskOptions) Validate() error {
	switch o.Docs {
	case "", DocsJSON, DocsSignatures:
		return nil
	}
	return fmt.Errorf("bfcl: task options: docs %q is unknown: use %q or %q (empty means %q)",
		o.Docs, DocsJSON, DocsSignatures, DocsJSON)
}

// FunctionDoc is the documentation of one function of an API class.
type FunctionDoc struct {
	Class     string
	Name      string
	JSON      string   // the documentation line as BFCL gives it
	Signature string   // `name(param: type, opt: type = default) - first sentence`
	Params    []string // parameter names in documented (signature) order
}

// docFiles maps each class to its documentation file under
// multi_turn_func_doc.
var docFiles = map[string]string{
	"GorillaFileSystem": "gorilla_file_system.json",
	"MathAPI":           "math_api.json",
	"MessageAPI":        "message_api.json",
	"TwitterAPI":        "posting_api.json",
	"TicketAPI":         "ticket_api.json",
	"TradingBot":        "trading_bot.json",
	"TravelAPI":         "travel_booking.json",
	"VehicleControlAPI": "vehicle_control.json",
}

// FunctionDocs reads the documentation of a class's functions from
// multi_turn_func_doc under the data directory, in file order.
func FunctionDocs(d *Data, class string) ([]FunctionDoc, error) {
	file, ok := docFiles[class]
	if !ok {
		return nil, fmt.Errorf("bfcl: no documentation file for class %q", class)
	}
	lines, err := readLines(filepath.Join(d.Dir, "multi_turn_func_doc", file))
	if err != nil {
		return nil, fmt.Errorf("bfcl: documentation of %s: %w", class, err)
	}
	out := make([]FunctionDoc, 0, len(lines))
	for _, l := range lines {
		if l.obj.Str("name") == "" {
			return nil, fmt.Errorf("bfcl: %s: line is not a function documentation", file)
		}
		out = append(out, FunctionDoc{Class: class, Name: l.obj.Str("name"), JSON: l.text,
			Signature: signature(l.obj), Params: paramNames(l.obj)})
	}
	return out, nil
}

// paramNames lists the documented parameters, in order.
func paramNames(fd *Dict) []string {
	_, props := docParams(fd)
	var out []string
	if props != nil {
		for _, k := range props.Keys() {
			name, _ := k.(string)
			out = append(out, name)
		}
	}
	return out
}

// docParams returns the required parameter names and the properties of a
// documentation object.
func docParams(fd *Dict) (map[string]bool, *Dict) {
	params, _ := fd.Get("parameters")
	pd, _ := params.(*Dict)
	required := map[string]bool{}
	if pd == nil {
		return required, nil
	}
	if r, ok := pd.Get("required"); ok {
		l, _ := r.([]any)
		for _, n := range l {
			s, _ := n.(string)
			required[s] = true
		}
	}
	v, _ := pd.Get("properties")
	props, _ := v.(*Dict)
	return required, props
}

// signature renders one documentation object as
// `name(param: type, opt: type = default) - first sentence`.
func signature(fd *Dict) string {
	required, props := docParams(fd)
	var parts []string
	if props != nil {
		for _, k := range props.Keys() {
			name, _ := k.(string)
			v, _ := props.Get(k)
			p, _ := v.(*Dict)
			parts = append(parts, paramText(name, p, required[name]))
		}
	}
	s := fd.Str("name") + "(" + strings.Join(parts, ", ") + ")"
	if sent := firstSentence(fd.Str("description")); sent != "" {
		s += " - " + sent
	}
	return s
}

// paramText renders `name: type`, with ` = default` for an optional
// parameter (None when the documentation gives no default, and for the
// documentation's "None" string, which stands for Python's None).
func paramText(name string, p *Dict, required bool) string {
	if p == nil {
		return name
	}
	s := name + ": " + docType(p)
	if required {
		return s
	}
	def := "None"
	if v, ok := p.Get("default"); ok && v != "None" {
		def = PyRepr(v)
	}
	return s + " = " + def
}

// docType maps a documented type to its Python name; a list names its
// item type when documented.
func docType(p *Dict) string {
	names := map[string]string{"string": "str", "integer": "int", "float": "float",
		"number": "float", "boolean": "bool", "array": "list", "dict": "dict", "object": "dict"}
	t := p.Str("type")
	n, ok := names[t]
	if !ok {
		n = t
	}
	if t == "array" {
		if v, ok := p.Get("items"); ok {
			if it, ok := v.(*Dict); ok && it.Str("type") != "" {
				n += "[" + docType(it) + "]"
			}
		}
	}
	return n
}

// firstSentence returns the first sentence of the text after "Tool
// description: " (of the whole description when that marker is absent).
func firstSentence(desc string) string {
	if _, after, ok := strings.Cut(desc, "Tool description:"); ok {
		desc = after
	}
	desc = strings.TrimSpace(desc)
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	return desc
}

// docSet reads each class's documentation once.
type docSet struct {
	d       *Data
	byClass map[string][]FunctionDoc
}

// functions returns the documentation of the classes' functions in class
// order, then file order; a name documented twice keeps its first entry.
func (s *docSet) functions(classes []string) ([]FunctionDoc, error) {
	var out []FunctionDoc
	seen := map[string]bool{}
	for _, c := range classes {
		fs, ok := s.byClass[c]
		if !ok {
			var err error
			if fs, err = FunctionDocs(s.d, c); err != nil {
				return nil, err
			}
			s.byClass[c] = fs
		}
		for _, f := range fs {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// Tasks turns entries into multi-turn tasks. Task.ID is the entry ID;
// Task.Prompt lists the functions available at turn 0 (those of the
// involved classes, minus Entry.Withheld(0)), then the user message(s) of
// turn 0; Task.Turns[k-1] is the text of turn k, for k from 1 to
// len(Entry.GroundTruth)-1: the user messages of Entry.Messages(k), joined
// by newlines, preceded, for a turn that offers withheld functions
// (Entry.MissedFunction[k]), by the documentation of exactly those
// functions. Task.Answer is empty. The layout is
//
//	Functions:
//	<one documentation line per function>
//
//	<user message>
//
// for the prompt, and "New functions:" in place of "Functions:" for a turn
// that offers functions; a turn without them is its user message alone.
// Functions are listed class by class in Entry.InvolvedClasses order, each
// class in the order of its documentation file. Missing documentation for
// an involved class, or for a withheld function, is an error.
func Tasks(d *Data, entries []Entry, o TaskOptions) ([]envs.Task, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	docs := &docSet{d: d, byClass: map[string][]FunctionDoc{}}
	out := make([]envs.Task, 0, len(entries))
	for i := range entries {
		t, err := task(&entries[i], docs, o.Docs == DocsSignatures)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func task(e *Entry, docs *docSet, sig bool) (envs.Task, error) {
	fns, err := docs.functions(e.InvolvedClasses)
	if err != nil {
		return envs.Task{}, err
	}
	byName := make(map[string]FunctionDoc, len(fns))
	for _, f := range fns {
		byName[f.Name] = f
	}
	withheld := map[string]bool{}
	for _, n := range e.Withheld(0) {
		withheld[n] = true
	}
	var first []FunctionDoc
	for _, f := range fns {
		if !withheld[f.Name] {
			first = append(first, f)
		}
	}
	t := envs.Task{ID: e.ID, Prompt: withDocs("Functions:", first, e.Messages(0), sig)}
	for k := 1; k < len(e.GroundTruth); k++ {
		var offered []FunctionDoc
		for _, n := range e.MissedFunction[k] {
			f, ok := byName[n]
			if !ok {
				return envs.Task{}, fmt.Errorf("bfcl: %s: no documentation for withheld function %q", e.ID, n)
			}
			offered = append(offered, f)
		}
		t.Turns = append(t.Turns, withDocs("New functions:", offered, e.Messages(k), sig))
	}
	return t, nil
}

// withDocs renders a header and the documentation lines, a blank line and
// the messages; without documentation, the messages alone.
func withDocs(header string, fns []FunctionDoc, msgs []Message, sig bool) string {
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		texts[i] = m.Content
	}
	text := strings.Join(texts, "\n")
	if len(fns) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(header)
	for _, f := range fns {
		b.WriteByte('\n')
		if sig {
			b.WriteString(f.Signature)
		} else {
			b.WriteString(f.JSON)
		}
	}
	b.WriteString("\n\n")
	b.WriteString(text)
	return b.String()
}
