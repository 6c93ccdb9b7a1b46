package toollib

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fixtureLibrary returns a library at a temporary path holding the four
// good fixtures, without verifying them.
func fixtureLibrary(t testing.TB) *Library {
	t.Helper()
	l, err := Open(filepath.Join(t.TempDir(), "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gcd", "isprime", "digitsum", "binomial"} {
		tool := fixture(t, name)
		l.tools[tool.Name] = newEntry(tool)
	}
	return l
}

func TestLibraryRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, 2*time.Second)
	path := filepath.Join(t.TempDir(), "tools.json")
	l, err := Open(path)
	if err != nil || l.Len() != 0 {
		t.Fatalf("Open(missing) = %v, %v; want an empty library", l, err)
	}
	for _, name := range []string{"isprime", "gcd"} {
		if err := l.Add(ctx, s, fixture(t, name)); err != nil {
			t.Fatal(err)
		}
	}
	rejects := []struct {
		name string
		tool Tool
		want string
	}{
		{"duplicate", fixture(t, "gcd"), "gcd: a tool of that name is already in the library"},
		{"failing cases", fixture(t, "wrong"), `case triple(2): got "6", want "7"`},
		{"invalid name", Tool{Name: "1x", Source: fixture(t, "gcd").Source}, `name "1x" is not a valid Go identifier`},
		{"name differs from source", Tool{Name: "lcm", Source: fixture(t, "gcd").Source}, "source declares gcd"},
	}
	for _, r := range rejects {
		t.Run(r.name, func(t *testing.T) {
			if err := l.Add(ctx, s, r.tool); err == nil || !strings.Contains(err.Error(), r.want) {
				t.Errorf("Add error = %v, want %q", err, r.want)
			}
		})
	}
	if err := l.Save(); err != nil {
		t.Fatal(err)
	}
	back, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Tools(), l.Tools()) || back.Len() != 2 || back.Tools()[0].Name != "gcd" {
		t.Errorf("reopened library holds %+v, want %+v", back.Tools(), l.Tools())
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "{\n  \"tools\": [\n") || strings.Contains(string(data), "triple") || !strings.Contains(string(data), "if a < 0 {") {
		t.Errorf("saved file:\n%s", data)
	}
}

func TestLibraryToolsAreCopies(t *testing.T) {
	l := fixtureLibrary(t)
	l.Tools()[0].Cases[0].Want = "changed"
	if got := l.Tools()[0].Cases[0].Want; got == "changed" {
		t.Error("Tools returned the library's own case slice")
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ name, content, want string }{
		{"malformed", "{\"tools\": [", "unexpected EOF"},
		{"unknown field", `{"tools": [], "extra": 1}`, `unknown field "extra"`},
		{"duplicate", `{"tools": [{"name": "f"}, {"name": "f"}]}`, "tool f appears twice"},
		{"bad name", `{"tools": [{"name": "a b"}]}`, `name "a b" is not a valid Go identifier`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".json")
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Open error = %v, want one naming %s and %q", err, path, c.want)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("Open(folder) error = %v, want one naming it", err)
		}
	})
}

func TestSearch(t *testing.T) {
	l := fixtureLibrary(t)
	cases := []struct {
		name, query string
		k           int
		want        string
	}{
		{"gcd by description", "greatest common divisor of two numbers", 3, "gcd"},
		{"name words", "is it prime", 4, "isPrime"},
		{"camelCase query", "digitSum", 4, "digitSum"},
		{"several match", "number", 4, "isPrime binomial"}, // the shorter doc first; gcd's "numbers" does not stem
		{"k bounds", "returns", 2, "digitSum gcd"},         // binomial, with a longer doc, also matches
		{"k zero", "prime", 0, ""},
		{"zero score left out", "zebra crossing", 4, ""},
		{"stop words only", "what is the", 4, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := names(l.Search(c.query, c.k))
			if got != c.want {
				t.Errorf("Search(%q, %d) = %q, want %q", c.query, c.k, got, c.want)
			}
			if again := names(l.Search(c.query, c.k)); again != got {
				t.Errorf("Search is not deterministic: %q then %q", got, again)
			}
		})
	}
}

func TestWords(t *testing.T) {
	cases := []struct{ in, want string }{
		{"isPrime", "prime"},
		{"parseHTTPRequest", "parse http request"},
		{"digit_sum2x", "digit sum x"},
		{"The sum of 12 digits.", "sum digits"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			if got := strings.Join(words(c.in), " "); got != c.want {
				t.Errorf("words(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
