package bfcl

import (
	"fmt"
	"sort"
	"strings"
)

// Env holds one entry's API instances. Instances persist across the calls
// and turns of the entry. An Env is not safe for concurrent use.
type Env struct {
	classes  []string
	apis     map[string]api
	index    map[string]bound
	withheld map[string]bool
}

type bound struct {
	class string
	m     method
}

// constructors builds each class from its initial_config (nil for none).
var constructors = map[string]func(d *Data, cfg *Dict, long bool) (api, error){
	"GorillaFileSystem": newFileSystem,
	"VehicleControlAPI": newVehicle,
	"TravelAPI":         newTravel,
	"TradingBot":        newTrading,
	"MessageAPI":        newMessage,
	"TwitterAPI":        newTwitter,
	"TicketAPI":         newTicket,
	"MathAPI":           newMath,
}

// Classes lists the supported class names.
func Classes() []string {
	out := make([]string, 0, len(constructors))
	for c := range constructors {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// NewEnv builds fresh instances of the involved classes, in order, from
// config (class name -> initial_config; nil or missing means defaults),
// with the long-context extensions when long is set.
func NewEnv(d *Data, involved []string, config *Dict, long bool) (*Env, error) {
	e := &Env{apis: map[string]api{}, index: map[string]bound{}, withheld: map[string]bool{}}
	for _, c := range involved {
		mk, ok := constructors[c]
		if !ok {
			return nil, fmt.Errorf("bfcl: unknown class %q", c)
		}
		var cfg *Dict
		if config != nil {
			v, _ := config.Get(c)
			cfg, _ = v.(*Dict)
		}
		a, err := mk(d, DeepCopy(orEmpty(cfg)).(*Dict), long)
		if err != nil {
			return nil, fmt.Errorf("bfcl: load %s: %w", c, err)
		}
		e.classes = append(e.classes, c)
		e.apis[c] = a
		for name, m := range a.methods() {
			e.index[name] = bound{class: c, m: m}
		}
	}
	return e, nil
}

func orEmpty(d *Dict) *Dict {
	if d == nil {
		return NewDict()
	}
	return d
}

// Execute parses and runs one call string and returns the result string the
// checker compares. Failures are results too: a text starting with
// ErrorPrefix.
//
// The call is in the BFCL call syntax or a JSON object {"name": ...,
// "arguments": {...}}.
func (e *Env) Execute(call string) string {
	var c Call
	var err error
	if t := strings.TrimSpace(call); strings.HasPrefix(t, "{") {
		var cs []Call
		if cs, err = ParseCalls(t); err == nil {
			c = cs[0]
		}
	} else {
		c, err = ParseCall(call)
	}
	if err != nil {
		return ErrorPrefix + "invalid syntax: " + err.Error()
	}
	return e.execute(c)
}

// ExecuteCall runs one parsed call.
func (e *Env) ExecuteCall(c Call) string { return e.execute(c) }

// Withhold makes the named functions answer with an error until Offer.
func (e *Env) Withhold(names ...string) {
	for _, n := range names {
		e.withheld[n] = true
	}
}

// Offer makes withheld functions callable again.
func (e *Env) Offer(names ...string) {
	for _, n := range names {
		delete(e.withheld, n)
	}
}

// Functions returns the callable (not withheld) function names, sorted.
func (e *Env) Functions() []string {
	var out []string
	for n := range e.index {
		if !e.withheld[n] {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Classes returns the involved classes in creation order.
func (e *Env) Classes() []string { return append([]string(nil), e.classes...) }

// State returns class name -> public state, in creation order, in the
// conformance format. The result is a fresh copy.
func (e *Env) State() *Dict {
	out := NewDict()
	for _, c := range e.classes {
		out.Set(c, DeepCopy(e.apis[c].state()))
	}
	return out
}

// loadAttrs starts from the default state and overrides every attribute
// whose key the config holds, keeping the default order.
func loadAttrs(d *Data, class string, cfg *Dict) *Dict {
	def := DeepCopy(d.defaults(class)).(*Dict)
	for _, k := range def.Keys() {
		if v, ok := cfg.Get(k); ok {
			def.Set(k, v)
		}
	}
	return def
}
