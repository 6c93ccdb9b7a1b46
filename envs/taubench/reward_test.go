package taubench

import (
	"testing"

	"github.com/artist-rl/artist/internal/pyval"
)

func TestOutputFound(t *testing.T) {
	for i, tc := range []struct {
		output, message string
		want            bool
	}{
		{"23553", "You saved $23,553.", true},
		{"23553", "You saved $23553.00", true},
		{"23,553", "You saved $23,553.", false}, // commas go from the message only
		{"Refund", "your REFUND is done", true},
		{"1286", "1 286", false},
		{"54.04", "54.040", true},
		{"", "anything", true},
	} {
		if got := OutputFound(tc.output, tc.message); got != tc.want {
			t.Errorf("case %d: OutputFound(%q, %q) = %v, want %v", i, tc.output, tc.message, got, tc.want)
		}
	}
}

func TestReward(t *testing.T) {
	done := Outcome{Done: true, Hash: "h", Messages: []string{"It costs 1,000 dollars", "and 327"}}
	for i, tc := range []struct {
		o       Outcome
		outputs []string
		want    float64
	}{
		{done, nil, 1},
		{done, []string{"1000", "327"}, 1},
		{done, []string{"1000", "1786"}, 0},
		{Outcome{Done: true, Hash: "other"}, nil, 0},
		{Outcome{Done: false, Hash: "h"}, nil, 0},
		{Outcome{Done: true, Failed: true, Hash: "h"}, nil, 0},
	} {
		if got := Reward(tc.o, "h", tc.outputs); got != tc.want {
			t.Errorf("case %d: reward %v, want %v", i, got, tc.want)
		}
	}
}

func act(name string, kv ...any) Action { return Action{Name: name, Kwargs: pyval.NewDict(kv...)} }

func TestFunctionScore(t *testing.T) {
	cancel := act("cancel_pending_order", "order_id", "#W1", "reason", "no longer needed")
	cancelReordered := act("cancel_pending_order", "reason", "no longer needed", "order_id", "#W1")
	pay := act("send_certificate", "user_id", "u", "amount", int64(100))
	payFloat := act("send_certificate", "user_id", "u", "amount", 100.0)
	other := act("cancel_pending_order", "order_id", "#W2", "reason", "no longer needed")
	for i, tc := range []struct {
		agent, gold []Action
		want        float64
		applies     bool
	}{
		{nil, nil, 0, false},
		{[]Action{cancel, pay}, []Action{cancel, pay}, 1, true},
		{[]Action{pay, cancelReordered}, []Action{cancel, pay}, 1, true}, // order and key order do not count
		{[]Action{payFloat}, []Action{pay}, 1, true},                     // 100 == 100.0
		{[]Action{other, pay}, []Action{cancel, pay}, 0.5, true},
		{[]Action{cancel}, []Action{cancel, cancel}, 0.5, true}, // one agent action matches once
		{[]Action{act(Respond, "content", "x")}, []Action{act(Respond, "content", "x")}, 0, true},
		{nil, []Action{cancel}, 0, true},
	} {
		got, ok := FunctionScore(tc.agent, tc.gold)
		if got != tc.want || ok != tc.applies {
			t.Errorf("case %d: FunctionScore = %v, %v; want %v, %v", i, got, ok, tc.want, tc.applies)
		}
	}
}

func TestFormatScore(t *testing.T) {
	d := loadDomain(t, fixture+"/"+Retail, Retail)
	for i, tc := range []struct {
		agent   []Action
		want    float64
		applies bool
	}{
		{nil, 0, false},
		{[]Action{act(Respond, "content", "hello")}, 1, true},
		{[]Action{act(Respond, "content", int64(3))}, 0, true},
		{[]Action{act(Respond, "content", "a", "extra", "b")}, 0, true},
		{[]Action{act("get_order_details", "order_id", "#W1"), act("get_order_details")}, 0.5, true},
		{[]Action{act("book_reservation"), act("think", "thought", "t")}, 0.5, true},
	} {
		got, ok := FormatScore(d, tc.agent)
		if got != tc.want || ok != tc.applies {
			t.Errorf("case %d: FormatScore = %v, %v; want %v, %v", i, got, ok, tc.want, tc.applies)
		}
	}
}
