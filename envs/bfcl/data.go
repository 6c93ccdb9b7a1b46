package bfcl

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Categories are the four multi-turn categories, in report order.
var Categories = []string{"base", "miss_func", "miss_param", "long_context"}

// Data holds the reference tables and the long-context extensions.
type Data struct {
	Dir    string
	tables *Dict
	ext    *Dict
	mem    map[string][]Entry // categories held in memory (WithEntries)
}

// WithEntries returns a copy of d that also holds entries as category:
// Entries(category) returns them (copies of the slice, in order) instead
// of reading files, so generated conversations are replayed and judged
// like the benchmark's. d itself is unchanged; the entries must not be
// modified afterwards.
func (d *Data) WithEntries(category string, entries []Entry) *Data {
	c := *d
	c.mem = make(map[string][]Entry, len(d.mem)+1)
	for k, v := range d.mem {
		c.mem[k] = v
	}
	c.mem[category] = entries
	return &c
}

// Message is one chat message of a question.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Entry is one test entry with its ground truth.
type Entry struct {
	ID              string
	Category        string
	Question        [][]Message // one list per turn; empty for turns without a user message
	InitialConfig   *Dict
	InvolvedClasses []string
	MissedFunction  map[int][]string // turn -> functions withheld until that turn
	GroundTruth     [][]string       // one list of call strings per turn
}

// LongContext reports whether the entry's instances load the extensions.
func (e *Entry) LongContext() bool { return e.Category == "long_context" }

// shipped holds the tables derived from the reference environments'
// source at the pinned gorilla commit (Apache-2.0; see tables/NOTICE).
// scripts/derive-bfcl-tables.sh regenerates them.
//
//go:embed tables/reference_tables.json tables/long_context_extensions.json
var shipped embed.FS

// Load reads the benchmark files under dir: the question and ground-truth
// files, read later by Entries, and the reference tables and long-context
// extensions. A table file present in dir is used; one that is absent comes
// from the copy built into the binary.
func Load(dir string) (*Data, error) {
	d := &Data{Dir: dir}
	for _, f := range []struct {
		name string
		dst  **Dict
	}{{"reference_tables.json", &d.tables}, {"long_context_extensions.json", &d.ext}} {
		b, err := os.ReadFile(filepath.Join(dir, f.name))
		if errors.Is(err, fs.ErrNotExist) {
			b, err = shipped.ReadFile("tables/" + f.name)
		}
		if err != nil {
			return nil, fmt.Errorf("bfcl: %w", err)
		}
		v, err := DecodeJSON(b)
		if err != nil {
			return nil, fmt.Errorf("bfcl: %s: %w", f.name, err)
		}
		dd, ok := v.(*Dict)
		if !ok {
			return nil, fmt.Errorf("bfcl: %s: not an object", f.name)
		}
		*f.dst = dd
	}
	return d, nil
}

func (d *Data) table(name string) any {
	v, ok := d.tables.Get(name)
	if !ok {
		panic("bfcl: missing table " + name)
	}
	return v
}

func (d *Data) extension(name string) any {
	v, ok := d.ext.Get(name)
	if !ok {
		panic("bfcl: missing extension " + name)
	}
	return v
}

func (d *Data) defaults(class string) *Dict {
	v, _ := d.table("empty_config_state").(*Dict).Get(class)
	return v.(*Dict)
}

// Entries reads a category's entries and their ground truth (a category
// added by WithEntries comes from memory).
func (d *Data) Entries(category string) ([]Entry, error) {
	if es, ok := d.mem[category]; ok {
		return append([]Entry(nil), es...), nil
	}
	qs, err := readLines(filepath.Join(d.Dir, "BFCL_v3_multi_turn_"+category+".json"))
	if err != nil {
		return nil, err
	}
	gts, err := readLines(filepath.Join(d.Dir, "possible_answer", "BFCL_v3_multi_turn_"+category+".json"))
	if err != nil {
		return nil, err
	}
	gtByID := map[string]*Dict{}
	for _, g := range gts {
		gtByID[g.obj.Str("id")] = g.obj
	}
	out := make([]Entry, 0, len(qs))
	for _, q := range qs {
		e, err := entryFrom(q.obj, category)
		if err != nil {
			return nil, err
		}
		g, ok := gtByID[e.ID]
		if !ok {
			return nil, fmt.Errorf("bfcl: %s: no ground truth", e.ID)
		}
		gt, _ := g.Get("ground_truth")
		for _, turn := range gt.([]any) {
			var calls []string
			for _, c := range turn.([]any) {
				calls = append(calls, c.(string))
			}
			e.GroundTruth = append(e.GroundTruth, calls)
		}
		out = append(out, e)
	}
	return out, nil
}

func entryFrom(q *Dict, category string) (Entry, error) {
	e := Entry{ID: q.Str("id"), Category: category, MissedFunction: map[int][]string{}}
	if v, ok := q.Get("initial_config"); ok {
		e.InitialConfig, _ = v.(*Dict)
	}
	ic, _ := q.Get("involved_classes")
	for _, c := range ic.([]any) {
		e.InvolvedClasses = append(e.InvolvedClasses, c.(string))
	}
	qv, _ := q.Get("question")
	for _, turn := range qv.([]any) {
		var msgs []Message
		for _, m := range turn.([]any) {
			md := m.(*Dict)
			msgs = append(msgs, Message{Role: md.Str("role"), Content: md.Str("content")})
		}
		e.Question = append(e.Question, msgs)
	}
	if mf, ok := q.Get("missed_function"); ok {
		for _, k := range mf.(*Dict).Keys() {
			t, err := strconv.Atoi(k.(string))
			if err != nil {
				return e, fmt.Errorf("bfcl: %s: bad missed_function turn %q", e.ID, k)
			}
			fs, _ := mf.(*Dict).Get(k)
			for _, f := range fs.([]any) {
				e.MissedFunction[t] = append(e.MissedFunction[t], f.(string))
			}
		}
	}
	return e, nil
}

// jsonLine is one non-blank line of a JSON Lines file: its text and the
// object it holds.
type jsonLine struct {
	text string
	obj  *Dict
}

// readLines reads a JSON Lines file of objects; an unreadable file, or a
// line that is not an object, is an error naming the file.
func readLines(path string) ([]jsonLine, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bfcl: %w", err)
	}
	var out []jsonLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		v, err := DecodeJSON([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("bfcl: %s: %w", filepath.Base(path), err)
		}
		d, ok := v.(*Dict)
		if !ok {
			return nil, fmt.Errorf("bfcl: %s: line is not an object", filepath.Base(path))
		}
		out = append(out, jsonLine{text: line, obj: d})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bfcl: %s: %w", filepath.Base(path), err)
	}
	return out, nil
}
