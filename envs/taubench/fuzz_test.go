package taubench

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/internal/pyval"
)

// FuzzCalculate checks that any expression gives a result or an error
// string, never a panic, and that results are floats in repr form.
func FuzzCalculate(f *testing.F) {
	for _, s := range []string{"2+2", "(1", "1..2", "2**-1", "7//-2.5", "0**0", ".", "((()))", "9**9**9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		out, err := Calculate(expr)
		if err == nil && !strings.ContainsAny(out, ".en") {
			t.Errorf("Calculate(%q) = %q is not a float repr", expr, out)
		}
	})
}

// FuzzToolCall calls every tool with arguments of any JSON shape: it must
// never panic, and a call that errors must leave the database unchanged.
func FuzzToolCall(f *testing.F) {
	for _, s := range []string{
		`{"order_id": "#W0000001", "item_ids": ["2000000001"], "new_item_ids": [1], "payment_method_id": "gift_card_5555555"}`,
		`{"order_id": ["#W0000002"], "reason": null}`, `{"user_id": {"a": 1}, "amount": "x"}`, `{}`,
		`{"reservation_id": "ABC123", "cabin": "economy", "flights": [{"flight_number": "HAT001"}], "payment_id": 3}`,
		`{"origin": 1, "destination": "SEA", "date": "x"}`, `{"origin": "JFK", "destination": "BOS", "date": 5}`,
	} {
		f.Add(s)
	}
	d := map[string]*Domain{Airline: loadDomain(f, fixture+"/"+Airline, Airline), Retail: loadDomain(f, fixture+"/"+Retail, Retail)}
	f.Fuzz(func(t *testing.T, kwargs string) {
		v, err := pyval.DecodeJSON([]byte(kwargs))
		if err != nil {
			return
		}
		kw, ok := v.(*pyval.Dict)
		if !ok {
			return
		}
		for _, dom := range d {
			for _, name := range dom.ToolNames() {
				env := dom.NewEnv()
				before := env.Hash()
				out, err := env.Call(name, pyval.DeepCopy(kw).(*pyval.Dict))
				if err == nil && strings.HasPrefix(out, "Error: ") && env.Hash() != before && name != "book_reservation" {
					t.Errorf("%s(%s) failed with %q but changed the database", name, kwargs, out)
				}
			}
		}
	})
}
