package derive

import (
	"fmt"

	"github.com/artist-rl/artist/envs/bfcl"
)

// lookupTable is one literal lookup table of reference_tables.json: where
// it lives and how it is read.
type lookupTable struct {
	name, file, class, method string
	read                      func(f *pyFuncDef) (any, error)
}

// lookupTables are the tables in output order.
var lookupTables = []lookupTable{
	{"travel_flight_base_costs", "travel_booking.py", "TravelAPI", "get_flight_cost", pairKeyedTable("base_costs")},
	{"travel_airports", "travel_booking.py", "TravelAPI", "list_all_airports", returnedLiteral},
	{"travel_city_to_airport", "travel_booking.py", "TravelAPI", "get_nearest_airport_by_city", localLiteral("airport_map")},
	{"travel_exchange_rates", "travel_booking.py", "TravelAPI", "compute_exchange_rate", pairKeyedTable("exchange_rates")},
	{"trading_company_to_symbol", "trading_bot.py", "TradingBot", "get_symbol_by_name", localLiteral("symbol_map")},
	{"trading_sector_stocks", "trading_bot.py", "TradingBot", "get_available_stocks", localLiteral("sector_map")},
	{"math_si_to_meters", "math_api.py", "MathAPI", "si_unit_conversion", localLiteral("to_meters")},
	{"math_imperial_factors", "math_api.py", "MathAPI", "imperial_si_conversion", localLiteral("conversion")},
	{"vehicle_city_to_zipcode", "vehicle_control.py", "VehicleControlAPI", "get_zipcode_based_on_city", zipcodeChain},
	{"vehicle_zip_distances", "vehicle_control.py", "VehicleControlAPI", "estimate_distance", distanceChain},
}

// localValue returns the value first assigned to the local name at the top
// level of f's body.
func localValue(f *pyFuncDef, name string) (expr, error) {
	for _, s := range f.Body {
		var target, value expr
		switch s := s.(type) {
		case *pyAssign:
			if len(s.Targets) == 1 {
				target, value = s.Targets[0], s.Value
			}
		case *pyAnnAssign:
			target, value = s.Target, s.Value
		}
		if n, ok := target.(*pyName); ok && n.ID == name && value != nil {
			return value, nil
		}
	}
	return nil, fmt.Errorf("%s assigns no local %s", f.Name, name)
}

// localLiteral reads a table that is the literal value of a local.
func localLiteral(name string) func(*pyFuncDef) (any, error) {
	return func(f *pyFuncDef) (any, error) {
		x, err := localValue(f, name)
		if err != nil {
			return nil, err
		}
		return literal(x)
	}
}

// pairKeyedTable reads a local dict keyed by pairs, {(a, b): v, ...}, as
// the list [[a, b, v], ...] in source order.
func pairKeyedTable(name string) func(*pyFuncDef) (any, error) {
	return func(f *pyFuncDef) (any, error) {
		x, err := localValue(f, name)
		if err != nil {
			return nil, err
		}
		d, ok := x.(*pyDict)
		if !ok {
			return nil, fmt.Errorf("line %d: %s is not a dict display", x.line(), name)
		}
		out := []any{}
		for i, kx := range d.Keys {
			k, err := literal(kx)
			if err != nil {
				return nil, err
			}
			pair, ok := k.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("line %d: %s key is not a pair", kx.line(), name)
			}
			v, err := literal(d.Values[i])
			if err != nil {
				return nil, err
			}
			out = append(out, []any{pair[0], pair[1], v})
		}
		return out, nil
	}
}

// returnedLiteral reads a table that is the literal f returns.
func returnedLiteral(f *pyFuncDef) (any, error) {
	for _, s := range f.Body {
		if r, ok := s.(*pyReturn); ok && r.Value != nil {
			return literal(r.Value)
		}
	}
	return nil, fmt.Errorf("%s has no top-level return", f.Name)
}

// ifChain returns the if statement at the top level of f and the ones its
// elif branches chain to, in order.
func ifChain(f *pyFuncDef) ([]*pyIf, error) {
	var first *pyIf
	for _, s := range f.Body {
		if i, ok := s.(*pyIf); ok {
			first = i
			break
		}
	}
	if first == nil {
		return nil, fmt.Errorf("%s has no if statement", f.Name)
	}
	var out []*pyIf
	for s := first; s != nil; {
		out = append(out, s)
		next, ok := (*pyIf)(nil), false
		if len(s.Else) == 1 {
			next, ok = s.Else[0].(*pyIf)
		}
		if !ok {
			break
		}
		s = next
	}
	return out, nil
}

// equalsConst matches "name == 'text'" and returns name and text.
func equalsConst(x expr) (name, text string, ok bool) {
	c, isCmp := x.(*pyCompare)
	if !isCmp || len(c.Ops) != 1 || c.Ops[0] != "==" {
		return "", "", false
	}
	n, isName := c.Left.(*pyName)
	s, isStr := constString(c.Comps[0])
	if !isName || !isStr {
		return "", "", false
	}
	return n.ID, s, true
}

// zipcodeChain reads "if city == 'C': return {'zipcode': 'Z'} elif ..."
// into {C: Z, ...}; the final else (the unknown-city answer) is not part of
// the table.
func zipcodeChain(f *pyFuncDef) (any, error) {
	chain, err := ifChain(f)
	if err != nil {
		return nil, err
	}
	out := bfcl.NewDict()
	for _, s := range chain {
		_, city, ok := equalsConst(s.Test)
		if !ok {
			return nil, fmt.Errorf("line %d: expected name == 'city'", s.Line)
		}
		r, ok := s.Body[len(s.Body)-1].(*pyReturn)
		d, isDict := (*pyDict)(nil), false
		if ok {
			d, isDict = r.Value.(*pyDict)
		}
		if !isDict || len(d.Keys) != 1 {
			return nil, fmt.Errorf("line %d: expected return {key: zipcode}", s.Line)
		}
		zip, ok := constString(d.Values[0])
		if !ok {
			return nil, fmt.Errorf("line %d: zipcode is not a str constant", s.Line)
		}
		out.Set(city, zip)
	}
	return out, nil
}

// distanceChain reads "if (a == 'A' and b == 'B') or (a == 'B' and b ==
// 'A'): distance = {'distance': D} elif ..." into [[A, B, D], ...]. Each
// test must name the pair in both orders, since the table is looked up in
// either order.
func distanceChain(f *pyFuncDef) (any, error) {
	chain, err := ifChain(f)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, s := range chain {
		or, ok := s.Test.(*pyBoolOp)
		if !ok || or.Op != "or" || len(or.Values) != 2 {
			return nil, fmt.Errorf("line %d: expected (a == A and b == B) or (a == B and b == A)", s.Line)
		}
		var pairs [2][2]string
		for i, v := range or.Values {
			and, ok := v.(*pyBoolOp)
			if !ok || and.Op != "and" || len(and.Values) != 2 {
				return nil, fmt.Errorf("line %d: expected a == A and b == B", s.Line)
			}
			for j, c := range and.Values {
				var ok bool
				if _, pairs[i][j], ok = equalsConst(c); !ok {
					return nil, fmt.Errorf("line %d: expected name == 'zip'", s.Line)
				}
			}
		}
		if pairs[0][0] != pairs[1][1] || pairs[0][1] != pairs[1][0] {
			return nil, fmt.Errorf("line %d: the two alternatives are not the same pair reversed", s.Line)
		}
		a, ok := s.Body[0].(*pyAssign)
		d, isDict := (*pyDict)(nil), false
		if ok {
			d, isDict = a.Value.(*pyDict)
		}
		if !isDict || len(d.Keys) != 1 {
			return nil, fmt.Errorf("line %d: expected distance = {key: km}", s.Line)
		}
		km, err := literal(d.Values[0])
		if err != nil {
			return nil, err
		}
		out = append(out, []any{pairs[0][0], pairs[0][1], km})
	}
	return out, nil
}
