package toollib

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs/sandbox"
)

// newSandbox returns a stateless sandbox with the given call timeout,
// closed when the test ends.
func newSandbox(t testing.TB, timeout time.Duration) *sandbox.Sandbox {
	t.Helper()
	cfg := sandbox.DefaultConfig()
	cfg.Timeout = timeout
	cfg.Workers = 2
	s, err := sandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fixture parses testdata/name.go.
func fixture(t testing.TB, name string) Tool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".go"))
	if err != nil {
		t.Fatal(err)
	}
	tool, err := ParseTool(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func TestParseTool(t *testing.T) {
	gcdSrc := "// gcd returns the greatest common divisor.\n//\n//\tgcd(12, 18) == 6\n//\tgcd(eq(1 == 1), 2) == 1\nfunc gcd(a, b int) int { return a }"
	want := Tool{
		Name:      "gcd",
		Doc:       "gcd returns the greatest common divisor.",
		Signature: "func gcd(a, b int) int",
		Source:    gcdSrc,
		Cases:     []Case{{Expr: "gcd(12, 18)", Want: "6"}, {Expr: "gcd(eq(1 == 1), 2)", Want: "1"}},
	}
	got, err := ParseTool(gcdSrc)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseTool(gcd) = %+v, %v; want %+v", got, err, want)
	}
	t.Run("package clause", func(t *testing.T) {
		got := fixture(t, "binomial")
		if got.Name != "binomial" || got.Signature != "func binomial(n, k int) int" || len(got.Cases) != 3 ||
			strings.Contains(got.Doc, "==") || !strings.HasPrefix(got.Source, "// binomial returns") ||
			!strings.HasSuffix(got.Source, "return r\n}") {
			t.Errorf("binomial fixture parsed as %+v", got)
		}
	})
	t.Run("prose with == is not an example", func(t *testing.T) {
		got, err := ParseTool("// f is 1 when x == 2.\n//\tf(2) == []int{1, 2, 3}\nfunc f(x int) []int { return nil }")
		if err != nil || got.Doc != "f is 1 when x == 2." || !reflect.DeepEqual(got.Cases, []Case{{Expr: "f(2)", Want: "[]int{1, 2, 3}"}}) {
			t.Errorf("got %+v, %v", got, err)
		}
	})
	bad := []struct{ name, src, want string }{
		{"syntax", "func f( {", "toollib: parse"},
		{"no func", "// x\nvar x = 1", "no other declarations"},
		{"empty", "", "no func declaration"},
		{"two funcs", "// f\n//\tf() == 1\nfunc f() int { return 1 }\n// g\nfunc g() {}", "2 func declarations"},
		{"import", "import \"sort\"\n// f\n//\tf() == 1\nfunc f() int { return 1 }", "no other declarations or imports"},
		{"method", "// m\nfunc (t T) m() {}", "is a method"},
		{"no doc", "func f() int { return 1 }", "no doc comment"},
		{"no example", "// f returns one.\nfunc f() int { return 1 }", "no example line"},
		{"example calls another func", "// f returns one.\n//\tg() == 1\nfunc f() int { return 1 }", "no example line"},
		{"only examples", "//\tf() == 1\nfunc f() int { return 1 }", "no description"},
		{"reserved name", "// main runs.\n//\tmain() == 1\nfunc main() {}", `name "main" is reserved`},
		{"no body", "// f is external.\n//\tf() == 1\nfunc f() int", "has no body"},
		{"printed want", "// f says hi.\n//\tf() == hello there\nfunc f() string { return \"\" }", `example "f() == hello there": WANT "hello there" is not a Go value`},
		{"printed slice", "// f.\n//\tf() == [1 2 3]\nfunc f() []int { return nil }", `WANT "[1 2 3]" is not a Go value`},
		{"want calls the tool", "// f.\n//\tf(1) == f(1)\nfunc f(x int) int { return x }", `WANT "f(1)" calls f itself`},
		{"bad tolerance", "// f.\n//\tf() == 1.5 (±x)\nfunc f() float64 { return 1.5 }", `tolerance "x" is not a non-negative number`},
		{"negative tolerance", "// f.\n//\tf() == 1.5 (+-  -1)\nfunc f() float64 { return 1.5 }", `tolerance "-1"`},
		{"tolerance of two results", "// f.\n//\tf() == 1.5, 2 (±0.1)\nfunc f() (float64, int) { return 1.5, 2 }", "a tolerance applies to one result"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseTool(c.src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ParseTool(%q) error = %v, want %q", c.src, err, c.want)
			}
		})
	}
}

func TestHarvest(t *testing.T) {
	snippet := `x := 10
// double returns twice n.
//
//	double(4) == 8
func double(n int) int {
	return 2 * n
}
fmt.Println(double(x))

func helper(s string) string { return s + "!" }

// shout returns s in upper case with an exclamation mark, as in {"a"}.
//	shout("hi") == "HI!"
func shout(s string) string {
	return helper(strings.ToUpper(s))
}
for i := 0; i < 2; i++ { fmt.Println(shout("x")) }
// noExample has a doc comment but no example.
func noExample() {}
`
	cases := []struct {
		name, code string
		want       []string
	}{
		{"snippet", snippet, []string{"double", "shout"}},
		{"program", "package main\n\n// half returns n / 2.\n//\thalf(9) == 4\nfunc half(n int) int { return n / 2 }\n\nfunc main() { fmt.Println(half(3)) }\n", []string{"half"}},
		{"unparsable func", "// f does.\n//\tf() == 1\nfunc f() int { return 1 ", nil},
		{"func literal", "// f\n//\tf() == 1\nfunc() { fmt.Println(1) }()", nil},
		{"no code", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var names []string
			for _, tool := range Harvest(c.code) {
				names = append(names, tool.Name)
			}
			if !reflect.DeepEqual(names, c.want) {
				t.Errorf("Harvest = %v, want %v", names, c.want)
			}
		})
	}
	t.Run("source is the declaration", func(t *testing.T) {
		got := Harvest(snippet)
		if len(got) != 2 || got[1].Source != "// shout returns s in upper case with an exclamation mark, as in {\"a\"}.\n//\tshout(\"hi\") == \"HI!\"\nfunc shout(s string) string {\n\treturn helper(strings.ToUpper(s))\n}" {
			t.Errorf("harvested %+v", got)
		}
	})
}

func TestVerify(t *testing.T) {
	s := newSandbox(t, 300*time.Millisecond)
	gcd := fixture(t, "gcd")
	withCase := func(t Tool, src string, c Case) Tool {
		if src != "" {
			t.Source = src
		}
		t.Cases = []Case{c}
		return t
	}
	cases := []struct {
		name string
		tool Tool
		want string // "" for success
	}{
		{"passes", gcd, ""},
		{"two tools in one prelude", Tool{Name: "both", Source: Prelude([]Tool{gcd, fixture(t, "isprime")}),
			Cases: []Case{{Expr: "isPrime(gcd(91, 13))", Want: "true"}}}, ""},
		{"wrong want", withCase(gcd, "", Case{Expr: "gcd(12, 18)", Want: "7"}), `case gcd(12, 18): got 6, want 7`},
		{"compile error", withCase(gcd, "", Case{Expr: "gcd(1)", Want: "1"}), "case gcd(1): error: "},
		{"panic", withCase(gcd, "func gcd(a, b int) int { panic(\"boom\") }", Case{Expr: "gcd(1, 2)", Want: "1"}), "error: error: panic: boom"},
		{"timeout", withCase(gcd, "func gcd(a, b int) int { for {} }", Case{Expr: "gcd(1, 2)", Want: "1"}), "case gcd(1, 2): timeout"},
		{"no cases", Tool{Name: "f", Source: gcd.Source}, "no cases"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Verify(context.Background(), s, c.tool)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Verify: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Verify error = %v, want %q", err, c.want)
			}
		})
	}
}

func TestListing(t *testing.T) {
	got := Listing([]Tool{fixture(t, "gcd"), fixture(t, "isprime")})
	want := "func gcd(a, b int) int // gcd returns the greatest common divisor of two integers a and b, which must not both be zero.\n" +
		"func isPrime(n int) bool // isPrime reports whether n is a prime number, by trial division.\n"
	if got != want {
		t.Errorf("Listing =\n%s\nwant\n%s", got, want)
	}
}

func FuzzHarvest(f *testing.F) {
	f.Add("// f returns one.\n//\tf() == 1\nfunc f() int { return 1 }\nfmt.Println(f())")
	f.Add("x := func() {}\n// g is.\n//\tg(x == nil) == true\nfunc g(b bool) bool { return b }")
	f.Add("package main\n/* c */ func main() {")
	f.Fuzz(func(t *testing.T, code string) {
		for _, tool := range Harvest(code) {
			again, err := ParseTool(tool.Source)
			if err != nil || !reflect.DeepEqual(again, tool) {
				t.Errorf("harvested %+v, which ParseTool reads as %+v, %v", tool, again, err)
			}
		}
	})
}
