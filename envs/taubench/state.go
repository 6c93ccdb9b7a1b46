package taubench

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/artist-rl/artist/internal/pyval"
)

// Env is one episode's database and the tools of its domain. It is not
// safe for concurrent use.
//
// The database is copied on write: an env starts with its own collection
// maps holding the domain's records, and a record is deep-copied the first
// time a tool looks it up by key (every tool that changes a record finds it
// that way). Tools that scan a collection only read it.
type Env struct {
	domain *Domain
	db     *pyval.Dict
	owned  map[string]map[string]bool // collection -> keys copied (or added)
}

// NewEnv returns an env on a fresh copy of the domain's database.
func (d *Domain) NewEnv() *Env {
	db := pyval.NewDict()
	for _, c := range d.db.Keys() {
		src := d.db.Dict(c.(string))
		coll := pyval.NewDict()
		for _, k := range src.Keys() {
			v, _ := src.Get(k)
			coll.Set(k, v)
		}
		db.Set(c, coll)
	}
	return &Env{domain: d, db: db, owned: map[string]map[string]bool{}}
}

// DB returns the env's live database: collection name to records. A
// caller that changes a record through it must go through Env tools, or
// the domain's shared data would change too.
func (e *Env) DB() *pyval.Dict { return e.db }

// record returns the record under key id of a collection, copying it into
// the env first, or nil when there is none. A key that is not a string
// finds nothing (every key of the data is a string).
func (e *Env) record(collection string, id any) *pyval.Dict {
	s, ok := id.(string)
	if !ok {
		return nil
	}
	coll := e.db.Dict(collection)
	v, _ := coll.Get(s)
	r, _ := v.(*pyval.Dict)
	if r == nil {
		return nil
	}
	if !e.owned[collection][s] {
		r = pyval.DeepCopy(r).(*pyval.Dict)
		coll.Set(s, r)
		e.own(collection, s)
	}
	return r
}

// own marks a record key as the env's own (copied or added).
func (e *Env) own(collection, key string) {
	if e.owned[collection] == nil {
		e.owned[collection] = map[string]bool{}
	}
	e.owned[collection][key] = true
}

// Hash returns Hash of the env's current database. Records the env never
// copied reuse the domain's cached text, so a hash costs the copied
// records plus one pass of SHA-256 over the cached text.
func (e *Env) Hash() string {
	texts, sorted := e.domain.recordTexts()
	h := sha256.New()
	w := bufio.NewWriterSize(h, 1<<16)
	colls := make([]string, 0, e.db.Len())
	for _, c := range e.db.Keys() {
		colls = append(colls, c.(string))
	}
	sort.Strings(colls)
	w.WriteByte('(')
	for i, c := range colls {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString("(" + pyval.ReprString(c) + ", ")
		coll := e.db.Dict(c)
		keys := sorted[c]
		if len(keys) != coll.Len() {
			// Records were added: collections never lose one.
			keys = make([]string, 0, coll.Len())
			for _, k := range coll.Keys() {
				keys = append(keys, k.(string))
			}
			sort.Strings(keys)
		}
		writeSeq(w, len(keys), func(j int) {
			k := keys[j]
			if t, ok := texts[c][k]; ok && !e.owned[c][k] {
				w.WriteString(t)
				return
			}
			v, _ := coll.Get(k)
			w.WriteString(pairText(k, v))
		})
		w.WriteByte(')')
	}
	if len(colls) == 1 {
		w.WriteByte(',')
	}
	w.WriteByte(')')
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// recordTexts returns, per collection and record key, the tuple text of
// the pair (key, record) in the fresh data, and each collection's keys
// sorted, computed once.
func (d *Domain) recordTexts() (texts map[string]map[string]string, sorted map[string][]string) {
	d.textsOnce.Do(func() {
		d.texts = map[string]map[string]string{}
		d.sorted = map[string][]string{}
		for _, c := range d.db.Keys() {
			coll := d.db.Dict(c.(string))
			m := make(map[string]string, coll.Len())
			for _, k := range coll.Keys() {
				v, _ := coll.Get(k)
				m[k.(string)] = pairText(k.(string), v)
				d.sorted[c.(string)] = append(d.sorted[c.(string)], k.(string))
			}
			sort.Strings(d.sorted[c.(string)])
			d.texts[c.(string)] = m
		}
	})
	return d.texts, d.sorted
}

// pairText is the tuple text of the pair (key, v): "('key', ...)".
func pairText(key string, v any) string {
	s := TupleString(pyval.NewDict(key, v)) // "(('key', ...),)"
	return s[1 : len(s)-2]
}
