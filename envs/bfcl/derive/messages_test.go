package derive

import (
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/bfcl"
)

// TestMessagesTestdata derives the message table of testdata/messages.py
// (f-strings, + concatenation, implicit concatenation, try/except levels,
// repeats, private methods) and compares it with testdata/messages.json.
func TestMessagesTestdata(t *testing.T) {
	got, err := Messages(readTestdata(t, "messages.py"), "Shop")
	if err != nil {
		t.Fatal(err)
	}
	g, err := writeTwoLevel(bfcl.NewDict("m", got))
	if err != nil {
		t.Fatal(err)
	}
	if d := jsonDiff(t, g, []byte(`{"m": `+readTestdata(t, "messages.json")+`}`)); d != "" {
		t.Errorf("messages differ: %s\ngot %s", d, g)
	}
}

func TestMessages(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"dict return", `return {"error": "E", "n": 1}`, `[["error", "E"]]`},
		{"name and attribute fields", `return {"m": f"{a} and {self.b}"}`, `[["m", "{a} and {b}"]]`},
		{"call field", `return {"m": f"{str(a)}!"}`, `[["m", "{…}!"]]`},
		{"format spec dropped", `return {"m": f"{x:.2f} B"}`, `[["m", "{x} B"]]`},
		{"plus", `return {"m": "to " + dest}`, `[["m", "to {dest}"]]`},
		{"plus call", `return {"m": "ids: " + ", ".join(ids)}`, `[["m", "ids: {…}"]]`},
		{"no literal", `return {"m": str(e)}`, `null`},
		{"subscript assign", "s = {}\n        s[\"k\"] = \"v\"", `[["k", "v"]]`},
		{"attribute assign ignored", `self.k = "v"`, `null`},
		{"call argument ignored", `self.log.append({"k": "v"})`, `null`},
		{"raise call", `raise ValueError("bad")`, `[["raise", "bad"]]`},
		{"raise dict ignored", `raise {"error": "bad"}`, `null`},
		{"bare string", `return "done"`, `[["return", "done"]]`},
		{"list", `return ["a", {"e": "b"}]`, `[["list", "a"], ["list:e", "b"]]`},
		{"repeat", "if x:\n            return {\"e\": \"same\"}\n        return {\"e\": \"same\"}", `[["e", "same"]]`},
		{"breadth first", "if x:\n            return {\"e\": \"deep\"}\n        return {\"e\": \"shallow\"}",
			`[["e", "shallow"], ["e", "deep"]]`},
		{"elif is one level deeper", "if x:\n            return {\"e\": \"a\"}\n        elif y:\n            return {\"e\": \"b\"}\n        else:\n            return {\"e\": \"c\"}",
			`[["e", "a"], ["e", "b"], ["e", "c"]]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "class C:\n    def m(self, x, y):\n        " + c.body + "\n"
			got, err := Messages(src, "C")
			if err != nil {
				t.Fatal(err)
			}
			v, _ := got.Get("C.m")
			s, err := bfcl.PyJSONUnicode(v)
			if err != nil {
				t.Fatal(err)
			}
			if s != c.want {
				t.Errorf("got %s, want %s", s, c.want)
			}
		})
	}
}

func TestMessagesErrors(t *testing.T) {
	if _, err := Messages("class C:\n    pass\n", "D"); err == nil || !strings.Contains(err.Error(), "no class D") {
		t.Errorf("missing class: %v", err)
	}
	if _, err := Messages("class C:\n    def m(self):\n        return lambda: 1\n", "C"); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("lambda: %v", err)
	}
}

// TestEmptyStateTestdata runs testdata/state.py's constructor and
// _load_scenario on an empty config and compares the public state, as a
// Python repr (int keys stay ints), with testdata/state.want.
func TestEmptyStateTestdata(t *testing.T) {
	got, err := EmptyState(readTestdata(t, "state.py"), "Store")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(readTestdata(t, "state.want"))
	if r := bfcl.PyRepr(got); r != want {
		t.Errorf("state\n got %s\nwant %s", r, want)
	}
}

func TestEmptyStateErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"class C:\n    pass\n", "no class D"},
		{"class D:\n    def _load_scenario(self, scenario, long_context=False):\n        while True:\n            pass\n", "line 3: this statement is not supported"},
		{"import random\nclass D:\n    def __init__(self):\n        self.r = random.Random(1)\n", "D.r holds unmodelled value random.Random()"},
		{"import os\nclass D:\n    def __init__(self):\n        if os.environ:\n            self.x = 1\n", "truth value"},
		{"class D:\n    def __init__(self):\n        self.x = y\n", "name 'y' is not defined"},
		{"class D:\n    def __init__(self, a):\n        self.a = a\n", "missing required argument 'a'"},
	} {
		_, err := EmptyState(c.src, "D")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("EmptyState(%q) error = %v; want one containing %q", c.src, err, c.want)
		}
	}
}
