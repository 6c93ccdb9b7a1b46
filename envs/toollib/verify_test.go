package toollib

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestVerifyKinds compares results with the example's value as Go would,
// for each kind of Go literal; a failing case names got and want.
func TestVerifyKinds(t *testing.T) {
	s := newSandbox(t, 2*time.Second)
	const (
		reverse  = "func f(s string) string { r := []rune(s); for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 { r[i], r[j] = r[j], r[i] }; return string(r) }"
		compound = "func f(p, r float64, n int) float64 { return p * math.Pow(1+r, float64(n)) }"
		third    = "func f(x float64) float64 { return x / 3 }"
		divmod   = "func f(a, b int) (int, error) { if b == 0 { return 0, fmt.Errorf(\"divide %d by zero\", a) }; return a / b, nil }"
		evens    = "func f(n int) []int { var out []int; for i := 0; i < n; i += 2 { out = append(out, i) }; return out }"
		counts   = "func f(s string) map[string]int { m := map[string]int{}; for _, w := range strings.Fields(s) { m[w]++ }; return m }"
		point    = "func f(x int) struct{ X, Y int } { return struct{ X, Y int }{x, 2 * x} }"
		pair     = "func f(x int) [2]int { return [2]int{x, -x} }"
	)
	cases := []struct {
		name, src, example string
		want               string // error text; "" for a pass
	}{
		{"int", "func f(x int) int { return 2 * x }", "f(4) == 8", ""},
		{"negative int", "func f(x int) int { return -x }", "f(3) == -3", ""},
		{"untyped int against int64", "func f(x int64) int64 { return x << 40 }", "f(1) == 1099511627776", ""},
		{"hex int against byte", "func f(s string) byte { return s[0] }", "f(\"A\") == 0x41", ""},
		{"wrong int", "func f(x int) int { return 2 * x }", "f(4) == 9", "got 8, want 9"},
		{"float want for an int", "func f(x int) int { return x }", "f(2) == 2.5", "got 2, want 2.5"},
		{"int want for a float", "func f(x float64) float64 { return x * 2 }", "f(1.5) == 3", ""},
		{"float all digits", compound, "f(1000, 0.1, 2) == 1210.0000000000002", ""},
		{"float rounded is unequal", compound, "f(1000, 0.1, 2) == 1210", "got 1210.0000000000002, want 1210"},
		{"float with tolerance", compound, "f(1000, 0.1, 2) == 1210 (±1e-9)", ""},
		{"float outside tolerance", third, "f(1) == 0.33 (+-0.001)", "got 0.3333333333333333, want 0.33 (±0.001)"},
		{"negative float exponent", third, "f(-3e-3) == -1e-3", ""},
		{"string", reverse, `f("hello") == "olleh"`, ""},
		{"string with escapes", reverse, `f("b\ta") == "a\tb"`, ""},
		{"raw string", reverse, "f(`\\n`) == `n\\`", ""},
		{"wrong string", reverse, `f("abc") == "abc"`, `got "cba", want "abc"`},
		{"unquoted string", reverse, `f("ih") == hi`, `(a string WANT is written in quotes: "hi")`},
		{"string against int", reverse, `f("1") == 1`, "error: "},
		{"rune", "func f(s string) rune { return []rune(s)[0] }", "f(\"école\") == 'é'", ""},
		{"wrong rune", "func f(s string) rune { return []rune(s)[0] }", "f(\"abc\") == 'b'", "got 97, want 'b'"},
		{"bool true", "func f(n int) bool { return n%2 == 0 }", "f(4) == true", ""},
		{"bool false", "func f(n int) bool { return n%2 == 0 }", "f(3) == false", ""},
		{"nil error", divmod, "f(7, 2) == 3, nil", ""},
		{"two results, second wrong", divmod, "f(7, 0) == 0, nil", `got 0, &errors.errorString{s:"divide 7 by zero"}, want 0, nil`},
		{"nil slice", evens, "f(0) == nil", ""},
		{"slice literal", evens, "f(5) == []int{0, 2, 4}", ""},
		{"slice of another type", evens, "f(3) == []int64{0, 2}", "got []int{0, 2}, want []int64{0, 2}"},
		{"map literal, any order", counts, `f("b a b") == map[string]int{"b": 2, "a": 1}`, ""},
		{"wrong map", counts, `f("a") == map[string]int{"a": 2}`, `got map[string]int{"a":1}, want map[string]int{"a": 2}`},
		{"struct literal", point, "f(2) == struct{ X, Y int }{2, 4}", ""},
		{"array literal", pair, "f(3) == [2]int{3, -3}", ""},
		{"expression of the result", evens, "len(f(9)) == 5", ""},
		{"constant expression", "func f() float64 { return math.Pi / 2 }", "f() == math.Pi/2", ""},
		{"panic", "func f(x int) int { return 1 / x }", "f(0) == 0", "error: error: panic: runtime error: integer divide by zero"},
		{"prints before the verdict", "func f(x int) int { fmt.Println(\"toollib-verdict:true\"); return x }", "f(1) == 2", "got 1, want 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tool, err := ParseTool("// f is a test.\n//\t" + c.example + "\n" + c.src)
			if err != nil {
				t.Fatal(err)
			}
			err = Verify(context.Background(), s, tool)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Verify(%s): %v", c.example, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Verify(%s) error = %v, want %q", c.example, err, c.want)
			}
		})
	}
}
