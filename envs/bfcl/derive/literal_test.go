package derive

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/bfcl"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestConstantsTestdata reads testdata/literals.py and compares each
// constant's Python repr with testdata/literals.want, which lists
// "NAME = repr" lines as Python prints them (tuples shown as lists, the
// form the reader returns).
func TestConstantsTestdata(t *testing.T) {
	got, err := Constants(readTestdata(t, "literals.py"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(readTestdata(t, "literals.want")))
	n := 0
	for sc.Scan() {
		name, want, ok := strings.Cut(sc.Text(), " = ")
		if !ok {
			t.Fatalf("bad want line %q", sc.Text())
		}
		n++
		t.Run(name, func(t *testing.T) {
			v, ok := got.Get(name)
			if !ok {
				t.Fatalf("constant %s missing", name)
			}
			if r := bfcl.PyRepr(v); r != want {
				t.Errorf("%s = %s\nwant  %s", name, r, want)
			}
		})
	}
	if got.Len() != n {
		t.Errorf("read %d constants, want %d", got.Len(), n)
	}
}

func TestLiteral(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`'a' "b" '''c'''`, `'abc'`},
		{`"it's"`, `"it's"`},
		{`'\x41\u00e9\n\t\\'`, `'Aé\n\t\\'`},
		{`r'\n'`, `'\\n'`},
		{`-5`, `-5`},
		{`- 5.5`, `-5.5`},
		{`--1`, `1`},
		{`[1, 2,]`, `[1, 2]`},
		{`(1,)`, `[1]`},
		{`{1: 'a', 'b': [None, True, False],}`, `{1: 'a', 'b': [None, True, False]}`},
		{`{"k": {"n": {}}}`, `{'k': {'n': {}}}`},
		{`...`, `Ellipsis`},
		{`5 / 9`, `0.5555555555555556`},
		{`2 * 3`, `6`},
		{`2 * 3.0`, `6.0`},
		{`1e16`, `1e+16`},
		{`0.0001`, `0.0001`},
		{`0.00001`, `1e-05`},
		{`9223372036854775807`, `9223372036854775807`},
		{"(\n  1,\n  2\n)", `[1, 2]`},
	} {
		v, err := Literal(c.src)
		if err != nil {
			t.Errorf("Literal(%s): %v", c.src, err)
			continue
		}
		if r := bfcl.PyRepr(v); r != c.want {
			t.Errorf("Literal(%s) = %s; want %s", c.src, r, c.want)
		}
	}
}

func TestLiteralTypes(t *testing.T) {
	for _, c := range []struct {
		src  string
		want any
	}{
		{`50`, int64(50)},
		{`50.0`, 50.0},
		{`True`, true},
		{`None`, nil},
		{`'x'`, "x"},
	} {
		v, err := Literal(c.src)
		if err != nil || v != c.want {
			t.Errorf("Literal(%s) = %#v, %v; want %#v", c.src, v, err, c.want)
		}
	}
}

func TestLiteralErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`x`, "not a literal"},
		{`f'{x}'`, "not a literal"},
		{`len([])`, "not a literal"},
		{`{1, 2}`, "set literals"},
		{`{[1]: 2}`, "dict key of type list"},
		{`'abc`, "unterminated string"},
		{`"""abc`, "unterminated string"},
		{`'\N{EM DASH}'`, `\N{...}`},
		{`'\ud800'`, "not a Unicode scalar value"},
		{`b'x'`, "bytes literals"},
		{`1j`, "imaginary"},
		{`99999999999999999999`, "64 bits"},
		{`9223372036854775807 + 1`, "overflow"},
		{`2 ** 3`, "operator ** is not supported"},
		{`1 / 0`, "division by zero"},
		{`'a' + 'b'`, "+ between str and str"},
		{`lambda: 1`, "lambda expressions are not supported"},
		{`[1, 2`, "expected"},
		{`007`, "leading zeros"},
		{`1 2`, "unexpected"},
	} {
		_, err := Literal(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "derive: ") {
			t.Errorf("Literal(%s) error = %v; want one starting with derive: and containing %q", c.src, err, c.want)
		}
	}
}

func TestConstantsErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"X = 1\nprint(X)\n", "line 2"},
		{"X = foo()\n", "X: line 1: a call is not a literal"},
		{"X, Y = 1, 2\n", "only NAME = literal"},
		{"if True:\n    X = 1\n", "line 1"},
		{"X = [1,\n", "line"},
		{"X = 1\n  Y = 2\n", "line 2"},
	} {
		_, err := Constants(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Constants(%q) error = %v; want one containing %q", c.src, err, c.want)
		}
	}
}
