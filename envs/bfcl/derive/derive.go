// Package derive rebuilds the two BFCL v3 table files that package bfcl
// embeds, reference_tables.json and long_context_extensions.json, from the
// Python sources of the reference environments (ShishirPatil/gorilla,
// berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/,
// Apache-2.0).
//
// The sources are read as data, never run by Python: a tokenizer and
// parser for the subset of Python they use, a literal evaluator (like
// ast.literal_eval) and a small interpreter that runs the classes'
// constructors on an empty config. Anything outside that subset is an
// error that names the file and line, so a changed source cannot yield
// silently different tables.
package derive

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/envs/bfcl"
)

// API is one environment class and the source file that defines it.
type API struct{ File, Class string }

// APIs are the eight environment classes, in the order of the tables'
// per-class sections.
var APIs = []API{
	{"gorilla_file_system.py", "GorillaFileSystem"},
	{"vehicle_control.py", "VehicleControlAPI"},
	{"travel_booking.py", "TravelAPI"},
	{"trading_bot.py", "TradingBot"},
	{"message_api.py", "MessageAPI"},
	{"posting_api.py", "TwitterAPI"},
	{"ticket_api.py", "TicketAPI"},
	{"math_api.py", "MathAPI"},
}

// ExtensionsFile is the source of long_context_extensions.json.
const ExtensionsFile = "long_context.py"

// SourceFiles returns the names of the nine files Tables reads.
func SourceFiles() []string {
	out := []string{}
	for _, a := range APIs {
		out = append(out, a.File)
	}
	return append(out, ExtensionsFile)
}

// notes is the "notes" table: what each table holds.
var notes = bfcl.NewDict(
	"source", "Literal lookup tables of the BFCL v3 reference environments (gorilla cd9429cc, Apache-2.0), extracted mechanically; see STATE.md for how they are used.",
	"travel_flight_base_costs", "[from, to, base USD] in the reference table order (directional; long-context get_flight_cost lists every route in this order)",
	"travel_exchange_rates", "[base, target, rate]; only these pairs and their reverses exist",
	"math_imperial_factors", "fahrenheit_to_celsius is the double nearest 5/9",
	"vehicle_zip_distances", "[zipA, zipB, km], looked up in either order",
	"empty_config_state", "public state of each class loaded from an empty initial_config (defaults), serialised as in conformance/README.md",
	"messages", "Class.method -> [result key, text template] for every fixed or templated message text the method can return (key 'raise' = raised, shown after 'Error during execution: '; 'return'/'list' = returned as a bare string/list item). {arg} is an argument or attribute; {…} is a joined list (see STATE.md). Some texts are unreachable in practice.",
)

// Tables reads the nine source files in srcDir (see SourceFiles) and
// returns the contents of reference_tables.json and
// long_context_extensions.json.
//
// reference_tables.json holds "notes"; the literal lookup tables
// travel_flight_base_costs and travel_exchange_rates (pair-keyed dicts as
// [a, b, value] lists), travel_airports, travel_city_to_airport,
// trading_company_to_symbol, trading_sector_stocks, math_si_to_meters,
// math_imperial_factors, vehicle_city_to_zipcode and vehicle_zip_distances
// (the last two read from if/elif chains); "empty_config_state" (EmptyState
// of each API); and "messages" (Messages of each API). Each top-level
// entry is written one item per line, the items compact.
// long_context_extensions.json holds the module-level constants of
// long_context.py (Constants), with the Python Ellipsis written as the
// string "...", indented by one space per level. Both keep ints and floats
// apart (50 versus 50.0) and write non-ASCII text unescaped.
func Tables(srcDir string) (tables, extensions []byte, err error) {
	mods := map[string][]stmt{}
	for _, name := range SourceFiles() {
		b, err := os.ReadFile(filepath.Join(srcDir, name))
		if err != nil {
			return nil, nil, fmt.Errorf("derive: %w", err)
		}
		if name == ExtensionsFile {
			c, err := constants(string(b))
			if err != nil {
				return nil, nil, fmt.Errorf("derive: %s: %w", name, err)
			}
			if extensions, err = writeIndented(ellipsisAsString(c)); err != nil {
				return nil, nil, err
			}
			continue
		}
		if mods[name], err = parseModule(string(b)); err != nil {
			return nil, nil, fmt.Errorf("derive: %s: %w", name, err)
		}
	}
	out := bfcl.NewDict("notes", notes)
	for _, t := range lookupTables {
		c := findClass(mods[t.file], t.class)
		var f *pyFuncDef
		if c != nil {
			f = findMethod(c, t.method)
		}
		if f == nil {
			return nil, nil, fmt.Errorf("derive: %s: no method %s.%s for table %s", t.file, t.class, t.method, t.name)
		}
		v, err := t.read(f)
		if err != nil {
			return nil, nil, fmt.Errorf("derive: %s: %s.%s: table %s: %w", t.file, t.class, t.method, t.name, err)
		}
		out.Set(t.name, v)
	}
	states, messages := bfcl.NewDict(), bfcl.NewDict()
	for _, a := range APIs {
		st, err := emptyState(mods[a.File], a.Class)
		if err != nil {
			return nil, nil, fmt.Errorf("derive: %s: %s state: %w", a.File, a.Class, err)
		}
		states.Set(a.Class, st)
		c := findClass(mods[a.File], a.Class)
		m := classMessages(c)
		for _, k := range m.Keys() {
			v, _ := m.Get(k)
			messages.Set(k, v)
		}
	}
	out.Set("empty_config_state", states)
	out.Set("messages", messages)
	if tables, err = writeTwoLevel(out); err != nil {
		return nil, nil, err
	}
	return tables, extensions, nil
}

// ellipsisAsString replaces every Ellipsis in v with the string "...".
func ellipsisAsString(v any) any {
	switch x := v.(type) {
	case bfcl.Ellipsis:
		return "..."
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ellipsisAsString(e)
		}
		return out
	case *bfcl.Dict:
		out := bfcl.NewDict()
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			out.Set(k, ellipsisAsString(e))
		}
		return out
	}
	return v
}
