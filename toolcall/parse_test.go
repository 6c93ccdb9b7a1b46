package toolcall

import (
	"reflect"
	"strings"
	"testing"
)

var cases = []struct {
	name    string
	text    string
	content string
	calls   []Call
}{
	{"plain", "Hello, world.", "Hello, world.", nil},
	{"one call", "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>", "",
		[]Call{{"get_weather", `{"city": "Paris"}`}}},
	{"content then calls", "Let me check.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": [1, {\"y\": \"}\"}]}}\n</tool_call>\n<tool_call>\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>",
		"Let me check.", []Call{{"a", `{"x": [1, {"y": "}"}]}`}, {"b", `{}`}}},
	{"content after a call", "<tool_call>{\"name\": \"a\", \"arguments\": {\"q\": \"\\\"</tool_call>\"}}</tool_call>\n\nDone.  ", "Done.  ",
		[]Call{{"a", `{"q": "\"</tool_call>"}`}}},
	{"arguments first", "<tool_call>\n{\"arguments\": {\"n\": 1}, \"name\": \"f\"}\n</tool_call>", "", []Call{{"f", `{"n": 1}`}}},
	{"arguments as a string", "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"n\\\": 2}\"}</tool_call>", "", []Call{{"f", `{"n": 2}`}}},
	{"no arguments", "<tool_call>{\"name\": \"f\"}</tool_call>", "", []Call{{"f", "{}"}}},
	{"invalid block is content", "a <tool_call>{not json}</tool_call> b", "a <tool_call>{not json}</tool_call> b", nil},
	{"block without a name is content", "<tool_call>{\"arguments\": {}}</tool_call>", "<tool_call>{\"arguments\": {}}</tool_call>", nil},
	{"unclosed call", "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}", "", []Call{{"f", `{"a": 1}`}}},
	{"unclosed head", "<tool_call>\n{\"arguments\": {\"a\": 1}, \"name\": \"g\"}", "", []Call{{"g", `{"a": 1}`}}},
	{"unclosed garbage", "x<tool_call>{\"na", "x<tool_call>{\"na", nil},
	{"tag prefix at the end", "a <tool_ca", "a <tool_ca", nil},
	{"non-ASCII", "héllo ✓ <tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"日本\"}}</tool_call>", "héllo ✓", []Call{{"f", `{"s": "日本"}`}}},
	{"escaped name", "<tool_call>{\"name\": \"a\\u0062\", \"arguments\": {}}</tool_call>", "", []Call{{"ab", "{}"}}},
}

func TestParse(t *testing.T) {
	for i, c := range cases {
		content, calls := Parse(c.text)
		if content != c.content || !reflect.DeepEqual(calls, c.calls) {
			t.Errorf("case %d (%s): got %q %+v, want %q %+v", i, c.name, content, calls, c.content, c.calls)
		}
	}
}

// joined feeds text cut at the given offsets and joins the events.
func joined(text string, cuts ...int) (string, []Call) {
	var p Parser
	var evs []Event
	prev := 0
	for _, at := range append(cuts, len(text)) {
		evs = append(evs, p.Feed(text[prev:at])...)
		prev = at
	}
	evs = append(evs, p.End()...)
	var b strings.Builder
	var calls []Call
	for _, e := range evs {
		switch e.Kind {
		case Content:
			b.WriteString(e.Text)
		case Start:
			if e.Index != len(calls) {
				panic("calls out of order")
			}
			calls = append(calls, Call{Name: e.Name})
		case Args:
			calls[e.Index].Arguments += e.Text
		}
	}
	return b.String(), calls
}

// TestSplitEverywhere cuts each case at every byte, and into single
// bytes: the events join to the same content and calls.
func TestSplitEverywhere(t *testing.T) {
	for i, c := range cases {
		for at := 0; at <= len(c.text); at++ {
			if content, calls := joined(c.text, at); content != c.content || !reflect.DeepEqual(calls, c.calls) {
				t.Errorf("case %d (%s) cut at %d: got %q %+v", i, c.name, at, content, calls)
			}
		}
		bytes := make([]int, 0, len(c.text))
		for at := 1; at < len(c.text); at++ {
			bytes = append(bytes, at)
		}
		if content, calls := joined(c.text, bytes...); content != c.content || !reflect.DeepEqual(calls, c.calls) {
			t.Errorf("case %d (%s) byte by byte: got %q %+v", i, c.name, content, calls)
		}
	}
}

// TestStreamsArguments: a call's name and the arguments written so far
// come out before the call closes.
func TestStreamsArguments(t *testing.T) {
	var p Parser
	evs := p.Feed("ok <tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"lon")
	want := []Event{{Kind: Content, Text: "ok"}, {Kind: Start, Name: "f"}, {Kind: Args, Text: `{"a": "lon`}}
	if !reflect.DeepEqual(evs, want) {
		t.Fatalf("events %+v, want %+v", evs, want)
	}
	if evs := p.Feed("g\"}}\n</tool"); !reflect.DeepEqual(evs, []Event{{Kind: Args, Text: `g"}`}}) {
		t.Errorf("events %+v", evs)
	}
}

// TestUTF8 holds back a cut rune, so no event splits one.
func TestUTF8(t *testing.T) {
	var p Parser
	s := "é"
	if evs := p.Feed(s[:1]); len(evs) != 0 {
		t.Errorf("half a rune gave %+v", evs)
	}
	if evs := p.Feed(s[1:] + "x"); len(evs) != 1 || evs[0].Text != "éx" {
		t.Errorf("events %+v", evs)
	}
}

func FuzzSplit(f *testing.F) {
	for _, c := range cases {
		f.Add(c.text, uint16(len(c.text)/2), uint16(3))
	}
	f.Fuzz(func(t *testing.T, text string, at, step uint16) {
		content, calls := Parse(text)
		var cuts []int
		for i := int(at) % (len(text) + 1); i < len(text); i += int(step%7) + 1 {
			cuts = append(cuts, i)
		}
		c2, calls2 := joined(text, cuts...)
		if c2 != content || !reflect.DeepEqual(calls2, calls) {
			t.Fatalf("cut at %v: %q %+v, whole: %q %+v", cuts, c2, calls2, content, calls)
		}
		for _, c := range calls {
			if c.Name == "" {
				t.Fatalf("a call without a name: %+v", calls)
			}
			if !strings.HasPrefix(c.Arguments, "{") {
				t.Fatalf("arguments %q do not start an object", c.Arguments)
			}
		}
	})
}
