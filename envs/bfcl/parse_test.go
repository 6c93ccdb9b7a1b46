package bfcl

import (
	"errors"
	"testing"
)

func TestParseCall(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string // want is the call re-printed in Python syntax
	}{
		{"keyword", "cd(folder='document')", "cd(folder='document')"},
		{"positional", `sort("final_report.pdf")`, "sort('final_report.pdf')"},
		{"mixed", "f(1, b=2.5)", "f(1, b=2.5)"},
		{"spaces around =", "comment(tweet_id = 10, comment_content = 'x')", "comment(tweet_id=10, comment_content='x')"},
		{"int vs float", "f(a=5, b=5.0, c=1e-05, d=.5, e=2., f=1_000)", "f(a=5, b=5.0, c=1e-05, d=0.5, e=2.0, f=1000)"},
		{"negative", "f(a=-3, b=-2.5, c=+4)", "f(a=-3, b=-2.5, c=4)"},
		{"literals", "f(a=True, b=False, c=None)", "f(a=True, b=False, c=None)"},
		{"list and tuple", "lockDoors(unlock=True, door=['driver', \"passenger\"], t=(1, 2,))", "lockDoors(unlock=True, door=['driver', 'passenger'], t=[1, 2])"},
		{"dict", "edit_ticket(ticket_id=0, updates={'status':'Urgent', 'priority':5, 3: None})", "edit_ticket(ticket_id=0, updates={'status': 'Urgent', 'priority': 5, 3: None})"},
		{"escapes", `echo(content='a\nb\t\'c\' \\ \x41\u00e9')`, `echo(content="a\nb\t'c' \\ Aé")`},
		{"raw and concatenated", `f(a=r'\d+' 'x' "y")`, `f(a='\\d+xy')`},
		{"triple quoted", `f(a='''it's "ok"''')`, `f(a='it\'s "ok"')`},
		{"dotted name", "TicketAPI.get_ticket(ticket_id=1)", "TicketAPI.get_ticket(ticket_id=1)"},
		{"newlines inside", "f(\n  a=1,\n  b=[1,\n 2]\n)", "f(a=1, b=[1, 2])"},
		{"empty", "pwd()", "pwd()"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCall(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String(); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestParseCallErrors(t *testing.T) {
	for _, in := range []string{"", "cd", "cd(", "cd(folder=)", "cd(folder='x'", "cd(folder='x') extra",
		"f(a=1, 2)", "f(a=1, a=2)", "f(x=foo)", "f(a='unterminated)", "f(a=[1, 2)", "f(a={1: 2)", "f(a=01)",
		"f(a={[1]: 2})", "1(a=1)", "f(a=-'x')"} {
		t.Run(in, func(t *testing.T) {
			if _, err := ParseCall(in); !errors.Is(err, ErrSyntax) {
				t.Errorf("ParseCall(%q) error %v, want ErrSyntax", in, err)
			}
		})
	}
}

func TestParseCalls(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"python list", "[cd(folder='a'), ls(a=True)]", []string{"cd(folder='a')", "ls(a=True)"}},
		{"lines", "cd(folder='a')\nls()\n", []string{"cd(folder='a')", "ls()"}},
		{"semicolons", "cd(folder='a'); ls()", []string{"cd(folder='a')", "ls()"}},
		{"json object", `{"name": "cd", "arguments": {"folder": "a"}}`, []string{"cd(folder='a')"}},
		{"json array", `[{"name": "add", "arguments": {"a": 1, "b": 2.0}}, {"name": "pwd", "arguments": {}}]`, []string{"add(a=1, b=2.0)", "pwd()"}},
		{"json string arguments", `{"name": "cd", "arguments": "{\"folder\": \"a\"}"}`, []string{"cd(folder='a')"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := ParseCalls(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != len(tc.want) {
				t.Fatalf("got %d calls, want %d", len(cs), len(tc.want))
			}
			for i, c := range cs {
				if c.String() != tc.want[i] {
					t.Errorf("call %d: got %s, want %s", i, c, tc.want[i])
				}
			}
		})
	}
	for _, bad := range []string{"", "[]", "[cd(folder='a') ls()]", `{"name": "a b", "arguments": {}}`, `{"name": "f", "arguments": [1]}`} {
		if _, err := ParseCalls(bad); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseCalls(%q) error %v, want ErrSyntax", bad, err)
		}
	}
}

// FuzzParseCall checks that parsing never panics and that a parsed call,
// printed back in Python syntax, parses to an equal call.
func FuzzParseCall(f *testing.F) {
	for _, s := range []string{"cd(folder='document')", "f(1, b=2.5, c=[True, None], d={'k': -1e-05})",
		`echo(content="a\n\u00e9\\", file_name='x')`, "f(a=(1,), b={})", `[f(), g(a="b")]`,
		`{"name": "f", "arguments": {"a": [1, 2.0, "x"]}}`, "f(a=0x1F, b=1_0)", "f(a='''x'''"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseCalls(s)
		if err != nil {
			return
		}
		for _, c := range cs {
			back, err := ParseCall(c.String())
			if err != nil {
				t.Fatalf("re-parse of %s: %v", c, err)
			}
			if back.Name != c.Name || !Equal(back.Args, c.Args) || len(back.Kwargs) != len(c.Kwargs) {
				t.Fatalf("round trip changed %s into %s", c, back)
			}
			for i := range c.Kwargs {
				if back.Kwargs[i].Name != c.Kwargs[i].Name || !sameValue(back.Kwargs[i].Value, c.Kwargs[i].Value) {
					t.Fatalf("round trip changed %s into %s", c, back)
				}
			}
		}
	})
}

// sameValue is Equal plus the int/float distinction and key order.
func sameValue(a, b any) bool { return PyRepr(a) == PyRepr(b) }
