package taubench

import (
	"testing"

	"github.com/artist-rl/artist/internal/pyval"
)

func TestCalculate(t *testing.T) {
	for i, tc := range []struct{ expr, want string }{
		{"2+2", "4.0"}, {"1/3", "0.33"}, {"10**20", "1e+20"}, {"1/100000", "0.0"}, {"-5", "-5.0"},
		{"7//2", "3.0"}, {"-7//2", "-4.0"}, {"7//-2", "-4.0"}, {"7.5//2", "3.0"}, {"-7.5//2", "-4.0"},
		{"2**-1", "0.5"}, {"-2**2", "-4.0"}, {"2**3**2", "512.0"}, {" 3131.1 + 4777.75 + 367.38", "8276.23"},
		{"155.33 - 147.05 + 268.77 - 235.13", "41.92"}, {"0.125", "0.12"}, {"2.675", "2.67"}, {".5 + 1.", "1.5"},
		{"(1)", "1.0"}, {"00 + 1", "1.0"}, {"+-+3", "-3.0"}, {"123456789 * 987654321", "1.2193263111263526e+17"}, {"99999999 * 99999999", "9999999800000000.0"},
		{"1/0", "Error: division by zero"}, {"1//0", "Error: integer division or modulo by zero"},
		{"1.0/0", "Error: float division by zero"}, {"1.0//0", "Error: float floor division by zero"},
		{"", "Error: invalid syntax (<string>, line 0)"}, {"   ", "Error: invalid syntax (<string>, line 0)"},
		{"1 +", "Error: invalid syntax (<string>, line 1)"}, {"(1 + 2", "Error: '(' was never closed (<string>, line 1)"},
		{"1 + 2)", "Error: unmatched ')' (<string>, line 1)"},
		{"01 + 1", "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"},
		{"10**400", "Error: int too large to convert to float"}, {"10**400 * 1.0", "Error: int too large to convert to float"},
		{"0**-1", "Error: 0.0 cannot be raised to a negative power"}, {"2 % 3", "Error: invalid characters in expression"},
		{"abs(1)", "Error: invalid characters in expression"},
	} {
		got := callTool(t, Retail, "calculate", pyval.NewDict("expression", tc.expr))
		if got != tc.want {
			t.Errorf("case %d: calculate(%q) = %q, want %q", i, tc.expr, got, tc.want)
		}
	}
}

// callTool runs one tool on a fresh env of the fixture domain.
func callTool(t *testing.T, domain, name string, kwargs *pyval.Dict) string {
	t.Helper()
	d := loadDomain(t, fixture+"/"+domain, domain)
	out, err := d.NewEnv().Call(name, kwargs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestArgumentErrors(t *testing.T) {
	for i, tc := range []struct {
		domain, name string
		kwargs       *pyval.Dict
		want         string
	}{
		{Airline, "cancel_reservation", pyval.NewDict(), "Error: CancelReservation.invoke() missing 1 required positional argument: 'reservation_id'"},
		{Airline, "search_direct_flight", pyval.NewDict("date", "2024-05-20"),
			"Error: SearchDirectFlight.invoke() missing 2 required positional arguments: 'origin' and 'destination'"},
		{Retail, "modify_user_address", pyval.NewDict("user_id", "x", "zip", "1"),
			"Error: ModifyUserAddress.invoke() missing 5 required positional arguments: 'address1', 'address2', 'city', 'state', and 'country'"},
		{Retail, "list_all_product_types", pyval.NewDict("b", int64(1), "a", int64(2)), "Error: ListAllProductTypes.invoke() got an unexpected keyword argument 'b'"},
		{Retail, "think", pyval.NewDict(), "Error: Think.invoke() missing 1 required positional argument: 'thought'"},
		{Retail, "book_reservation", pyval.NewDict(), "Unknown action book_reservation"},
		{Airline, "respond", pyval.NewDict("content", "hi"), "Unknown action respond"},
		{Airline, "send_certificate", pyval.NewDict("user_id", "nobody", "amount", int64(1)), "Error: user not found"},
		{Airline, "get_reservation_details", pyval.NewDict("reservation_id", []any{}), "Error: user not found"},
		{Airline, "think", pyval.NewDict("thought", "plan"), ""},
		{Retail, "transfer_to_human_agents", pyval.NewDict("summary", "s"), "Transfer successful"},
	} {
		if got := callTool(t, tc.domain, tc.name, tc.kwargs); got != tc.want {
			t.Errorf("case %d: %s = %q, want %q", i, tc.name, got, tc.want)
		}
	}
}

// TestSendCertificateExhausted checks the one tool result that fails the
// episode: a user who holds all three certificate ids.
func TestSendCertificateExhausted(t *testing.T) {
	d := loadDomain(t, fixture+"/"+Airline, Airline)
	env := d.NewEnv()
	args := pyval.NewDict("user_id", "ben_wu_2002", "amount", int64(10))
	want := []string{
		"Certificate certificate_3221323 added to user ben_wu_2002 with amount 10.",
		"Certificate certificate_3221324 added to user ben_wu_2002 with amount 10.",
	}
	for i, w := range want {
		if got, err := env.Call("send_certificate", args); err != nil || got != w {
			t.Fatalf("call %d: %q, %v; want %q", i, got, err, w)
		}
	}
	if _, err := env.Call("send_certificate", args); err != ErrNoOutput {
		t.Errorf("third call: err %v, want ErrNoOutput", err)
	}
}

// TestErrorLeavesDBUntouched checks that failing tools change nothing and
// that a fresh env does not see another env's changes.
func TestErrorLeavesDBUntouched(t *testing.T) {
	d := loadDomain(t, fixture+"/"+Retail, Retail)
	fresh := d.NewEnv().Hash()
	env := d.NewEnv()
	for i, c := range []struct {
		name   string
		kwargs *pyval.Dict
	}{
		{"modify_pending_order_items", pyval.NewDict("order_id", "#W0000003", "item_ids", []any{"2000000012"},
			"new_item_ids", []any{"2000000011"}, "payment_method_id", "gift_card_0000000")},
		{"cancel_pending_order", pyval.NewDict("order_id", "#W0000002", "reason", "no longer needed")},
		{"exchange_delivered_order_items", pyval.NewDict("order_id", "#W0000002", "item_ids", []any{"2000000001"},
			"new_item_ids", []any{}, "payment_method_id", "paypal_6666666")},
	} {
		out, _ := env.Call(c.name, c.kwargs)
		if out[:7] != "Error: " {
			t.Fatalf("case %d: %s succeeded: %s", i, c.name, out)
		}
		if env.Hash() != fresh {
			t.Errorf("case %d: a failing %s changed the database", i, c.name)
		}
	}
	env.Call("cancel_pending_order", pyval.NewDict("order_id", "#W0000001", "reason", "no longer needed"))
	if env.Hash() == fresh {
		t.Fatal("a cancellation left the hash unchanged")
	}
	if env.Hash() != Hash(env.DB()) {
		t.Error("Env.Hash differs from Hash of the same database")
	}
	if d.NewEnv().Hash() != fresh {
		t.Error("a new env sees another env's changes")
	}
}

func TestHashExample(t *testing.T) {
	v, err := pyval.DecodeJSON([]byte(`{"b": [1, 2.5], "a": {"x": "it's"}, "c": [true], "d": null, "e": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `(('a', (('x', "it's"),)), ('b', (1, 2.5)), ('c', (True,)), ('d', None), ('e', ()))`
	if got := TupleString(v); got != want {
		t.Errorf("TupleString =\n%s\nwant\n%s", got, want)
	}
	w, _ := pyval.DecodeJSON([]byte(`{"b": [1, 2.5], "a": {"x": "it's"}, "c": [true], "d": null, "e": {}}`))
	w.(*pyval.Dict).Set("b", []any{1.0, 2.5})
	if Hash(v) == Hash(w) {
		t.Error("1 and 1.0 hash the same")
	}
}
