package bfcl

import (
	"testing"
)

// ticketEntry is a one-turn TicketAPI entry whose ground truth is gt, on
// one open ticket of the logged-in user.
func ticketEntry(t *testing.T, gt string) Entry {
	t.Helper()
	cfg, err := DecodeJSON([]byte(`{"TicketAPI": {"ticket_queue": [{"id": 1, "title": "printer", "description": "", "status": "Open", "priority": 2, "created_by": "ana"}], "ticket_counter": 2, "current_user": "ana"}}`))
	if err != nil {
		t.Fatal(err)
	}
	return Entry{ID: "multi_turn_base_9999", Category: "base", InitialConfig: cfg.(*Dict), InvolvedClasses: []string{"TicketAPI"}, GroundTruth: [][]string{{gt}}}
}

// TestCheckPythonEquality: the checker compares what the official one
// compares with Python's ==, on values: the public state of every class
// after each turn. There 5 == 5.0, True == 1 and [1, 2] == [1.0, 2.0],
// dicts ignore their order, but "5" != 5, lists keep their order and the
// keys 1 and "1" differ. Execution results are strings (a dict's
// json.dumps, anything else's str) and compared as strings, so a call
// whose result prints a number differently fails the response check even
// when the state matches, as in the official checker.
func TestCheckPythonEquality(t *testing.T) {
	for i, tc := range []struct {
		name, gt, model string
		want            string // "" for valid
	}{
		{"5.0 where the ground truth passes 5", "edit_ticket(ticket_id=1, updates={'priority': 5})", "edit_ticket(ticket_id=1, updates={'priority': 5.0})", ""},
		{"5 where the ground truth passes 5.0", "edit_ticket(ticket_id=1, updates={'priority': 5.0})", "edit_ticket(ticket_id=1, updates={'priority': 5})", ""},
		{"True where the ground truth passes 1", "edit_ticket(ticket_id=1, updates={'priority': 1})", "edit_ticket(ticket_id=1, updates={'priority': True})", ""},
		{"False where the ground truth passes 0.0", "edit_ticket(ticket_id=1, updates={'priority': 0.0})", "edit_ticket(ticket_id=1, updates={'priority': False})", ""},
		{"a list of floats for a list of ints", "edit_ticket(ticket_id=1, updates={'description': [1, 2]})", "edit_ticket(ticket_id=1, updates={'description': [1.0, 2.0]})", ""},
		{"a dict in another order, numbers retyped", "edit_ticket(ticket_id=1, updates={'description': {'a': 1, 'b': [2]}})", "edit_ticket(ticket_id=1, updates={'description': {'b': [2.0], 'a': True}})", ""},
		{"JSON call with a float", "edit_ticket(ticket_id=1, updates={'priority': 3})", `{"name": "edit_ticket", "arguments": {"ticket_id": 1, "updates": {"priority": 3.0}}}`, ""},
		{"the string '5' for 5", "edit_ticket(ticket_id=1, updates={'priority': 5})", "edit_ticket(ticket_id=1, updates={'priority': '5'})", ErrState},
		{"True for 2", "edit_ticket(ticket_id=1, updates={'priority': 2})", "edit_ticket(ticket_id=1, updates={'priority': True})", ErrState},
		{"a list in another order", "edit_ticket(ticket_id=1, updates={'description': [1, 2]})", "edit_ticket(ticket_id=1, updates={'description': [2, 1]})", ErrState},
		{"the key '1' for 1", "edit_ticket(ticket_id=1, updates={'description': {1: 'x'}})", "edit_ticket(ticket_id=1, updates={'description': {'1': 'x'}})", ErrState},
		{"None for 0", "edit_ticket(ticket_id=1, updates={'description': [0]})", "edit_ticket(ticket_id=1, updates={'description': [None]})", ErrState},
		// The id 1.0 finds ticket 1 (==), and the state matches, but the
		// result reads "Ticket 1.0 has been updated".
		{"the id 1.0 for 1: result printed differently", "edit_ticket(ticket_id=1, updates={'priority': 5})", "edit_ticket(ticket_id=1.0, updates={'priority': 5})", ErrResponse},
		// The state matches (priority 3 == 3.0); the result is the
		// ticket's json.dumps, whose "priority": 3.0 is not "priority": 3.
		{"create with 3.0: result printed differently", "create_ticket(title='disk', priority=3)", "create_ticket(title='disk', priority=3.0)", ErrResponse},
		{"create with True for 1: result printed differently", "create_ticket(title='disk', priority=1)", "create_ticket(title='disk', priority=True)", ErrResponse},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ticketEntry(t, tc.gt)
			if v := Check(testData(t), e, e.GroundTruthTurns()); !v.Valid {
				t.Fatalf("case %d: the ground truth fails: %s %s", i, v.ErrorType, v.Message)
			}
			v := Check(testData(t), e, [][][]string{{{tc.model}}})
			if tc.want == "" && !v.Valid {
				t.Fatalf("case %d: got %s (%s), want valid as Python's == has it", i, v.ErrorType, v.Message)
			}
			if tc.want != "" && (v.Valid || v.ErrorType != tc.want) {
				t.Fatalf("case %d: got valid=%v %s (%s), want %s", i, v.Valid, v.ErrorType, v.Message, tc.want)
			}
		})
	}
}
