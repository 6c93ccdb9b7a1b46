package pyval

import (
	"fmt"
	"math"
)

// Dict is an insertion-ordered map, as a Python dict. Lookups follow
// Python's hashing: True is the key 1 and 2.0 is 2, but int64(1) and "1"
// are different keys. As in Python, a key keeps the object it was first
// stored with: after d[3.0] = x, d[3] = y the key is still 3.0, and json
// and repr write it so.
type Dict struct {
	keys []any       // the keys as first stored, in insertion order
	m    map[any]any // values by hashKey of their key
}

// NewDict returns a dict holding the alternating key, value pairs.
func NewDict(kv ...any) *Dict {
	if len(kv)%2 != 0 {
		panic("pyval: NewDict needs key, value pairs")
	}
	d := &Dict{m: make(map[any]any, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		d.Set(kv[i], kv[i+1])
	}
	return d
}

// Len returns the number of items.
func (d *Dict) Len() int { return len(d.keys) }

// Keys returns the keys in insertion order; the slice must not be modified.
func (d *Dict) Keys() []any { return d.keys }

// Get returns the value under k.
func (d *Dict) Get(k any) (any, bool) {
	k, ok := hashKey(k)
	if !ok {
		return nil, false
	}
	v, ok := d.m[k]
	return v, ok
}

// Has reports whether k is present.
func (d *Dict) Has(k any) bool { _, ok := d.Get(k); return ok }

// Str returns the string under k, or "" when absent or not a string.
func (d *Dict) Str(k any) string { s, _ := d.m[k].(string); return s }

// at returns the value under a key of d.keys.
func (d *Dict) at(k any) any {
	hk, _ := hashKey(k)
	return d.m[hk]
}

// Dict returns the dict under k, or nil when absent or not a dict.
func (d *Dict) Dict(k string) *Dict { x, _ := d.m[k].(*Dict); return x }

// List returns the list under k, or nil when absent or not a list.
func (d *Dict) List(k string) []any { x, _ := d.m[k].([]any); return x }

// Set stores v under k; a new key goes last, an existing key keeps its
// place. It panics on an unhashable key (a list or dict).
func (d *Dict) Set(k, v any) {
	hk, ok := hashKey(k)
	if !ok {
		panic(fmt.Sprintf("pyval: unhashable dict key %T", k))
	}
	if d.m == nil {
		d.m = map[any]any{}
	}
	if _, ok := d.m[hk]; !ok {
		d.keys = append(d.keys, orig(k))
	}
	d.m[hk] = v
}

// Delete removes k if present.
func (d *Dict) Delete(k any) {
	k, ok := hashKey(k)
	if !ok {
		return
	}
	if _, ok := d.m[k]; !ok {
		return
	}
	delete(d.m, k)
	for i, x := range d.keys {
		if hx, _ := hashKey(x); hx == k {
			d.keys = append(d.keys[:i:i], d.keys[i+1:]...)
			break
		}
	}
}

// hashKey maps a key to its dict identity as Python hashes it.
func hashKey(k any) (any, bool) {
	switch x := k.(type) {
	case string, int64, nil, Ellipsis, ReprValue:
		return k, true
	case int:
		return int64(x), true
	case bool:
		if x {
			return int64(1), true
		}
		return int64(0), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return int64(x), true
		}
		return x, true
	}
	return nil, false
}

// orig is the key object a dict keeps for k: k itself, an int as int64.
func orig(k any) any {
	if x, ok := k.(int); ok {
		return int64(x)
	}
	return k
}

// DeepCopy copies a value recursively (copy.deepcopy).
func DeepCopy(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	case *Dict:
		out := &Dict{keys: make([]any, 0, len(x.keys)), m: make(map[any]any, len(x.keys))}
		for _, k := range x.keys {
			hk, _ := hashKey(k)
			out.keys = append(out.keys, k)
			out.m[hk] = DeepCopy(x.m[hk])
		}
		return out
	}
	return v
}

// Hashable reports whether k can be a dict key (lists and dicts cannot).
func Hashable(k any) bool { _, ok := hashKey(k); return ok }
