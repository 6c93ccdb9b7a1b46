package pyval

import (
	"errors"
	"strings"
	"testing"
)

func TestUnescape(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{`plain`, "plain", ""},
		{`a\nb\tc\\d\'e\"f`, "a\nb\tc\\d'e\"f", ""},
		{`\a\b\f\r\v`, "\a\b\f\r\v", ""},
		{"line\\\ncontinued", "linecontinued", ""},
		{`\101\0\7\1234`, "A\x00\x07S4", ""},
		{`\x41\u00e9\U0001F600`, "Aé😀", ""},
		{`\q\é`, `\q\é`, ""},
		{`end\`, `end\`, ""},
		{`\x4`, "", `truncated \x escape`},
		{`\xZZ`, "", `bad \x escape "ZZ"`},
		{`\ud800`, "", "not a Unicode scalar value"},
		{`\U00110000`, "", "not a Unicode scalar value"},
		{`\N{BULLET}`, "", `\N{...}`},
	}
	for i, c := range cases {
		got, err := Unescape(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("case %d %q: error %v, want %q", i, c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("case %d %q: %q, %v; want %q", i, c.in, got, err, c.want)
		}
	}
}

func TestScanString(t *testing.T) {
	cases := []struct {
		src    string
		end    int // -1: unterminated
		quoted int // ScanQuoted's end
	}{
		{`'abc' + x`, 5, 5},
		{`"a\"b" x`, 6, 6},
		{`'''a'b''' x`, 9, 2},
		{`"""a` + "\n" + `b""" x`, 9, 2},
		{"'a\nb'", -1, 5},
		{"'a\\\nb'", 6, 6},
		{`'abc`, -1, -1},
		{`'''ab''`, -1, 2},
	}
	for i, c := range cases {
		end, err := ScanString(c.src, 0)
		if c.end < 0 {
			if !errors.Is(err, ErrUnterminated) {
				t.Errorf("case %d %q: %d, %v; want unterminated", i, c.src, end, err)
			}
		} else if err != nil || end != c.end {
			t.Errorf("case %d %q: %d, %v; want %d", i, c.src, end, err, c.end)
		}
		q, err := ScanQuoted(c.src, 0)
		if c.quoted < 0 && err == nil || c.quoted >= 0 && (err != nil || q != c.quoted) {
			t.Errorf("case %d %q: ScanQuoted %d, %v; want %d", i, c.src, q, err, c.quoted)
		}
	}
}

func TestSplitLiteral(t *testing.T) {
	cases := []struct {
		text string
		want Literal
	}{
		{`'a'`, Literal{Body: "a"}},
		{`Rb"x\n"`, Literal{Raw: true, Bytes: true, Body: `x\n`}},
		{`f'''{x}'''`, Literal{F: true, Body: "{x}"}},
		{`u""`, Literal{Body: ""}},
		{`''''''`, Literal{Body: ""}},
	}
	for i, c := range cases {
		if got := SplitLiteral(c.text); got != c.want {
			t.Errorf("case %d %s: %+v, want %+v", i, c.text, got, c.want)
		}
	}
	for _, w := range []string{"r", "U", "bR", "rf", "Fr"} {
		if !IsStringPrefix(w) {
			t.Errorf("%q is a string prefix", w)
		}
	}
	for _, w := range []string{"ur", "bf", "x", ""} {
		if IsStringPrefix(w) {
			t.Errorf("%q is no string prefix", w)
		}
	}
	if v, err := SplitLiteral(`r'\n'`).Value(); v != `\n` || err != nil {
		t.Errorf("raw value %q, %v", v, err)
	}
	if v, err := SplitLiteral(`'\n'`).Value(); v != "\n" || err != nil {
		t.Errorf("value %q, %v", v, err)
	}
}

func TestScanNumberNameOperator(t *testing.T) {
	numbers := map[string]string{
		"12+": "12", "1_000.5e-3j)": "1_000.5e-3j", ".5.": ".5", "0x1F,": "0x1F", "0b10 ": "0b10",
		"1e": "1", "3.": "3.", "1E+2x": "1E+2",
	}
	for src, want := range numbers {
		if !StartsNumber(src, 0) {
			t.Errorf("%q: no number starts", src)
		}
		if got := src[:ScanNumber(src, 0)]; got != want {
			t.Errorf("%q: number %q, want %q", src, got, want)
		}
	}
	if StartsNumber(".x", 0) || StartsNumber("x1", 0) {
		t.Error("a number starts at '.x' or 'x1'")
	}
	names := map[string]string{"abc(": "abc", "_x1 ": "_x1", "café=": "café", "1a": "", "+": ""}
	for src, want := range names {
		if got := src[:ScanName(src, 0)]; got != want {
			t.Errorf("%q: name %q, want %q", src, got, want)
		}
	}
	ops := map[string]string{"**=1": "**=", "->x": "->", "...": "...", "//": "//", "<>": "<", "$": "", "!x": ""}
	for src, want := range ops {
		if got := Operator(src); got != want {
			t.Errorf("%q: operator %q, want %q", src, got, want)
		}
	}
}

func FuzzLexLiteral(f *testing.F) {
	for _, s := range []string{`'a\x41'`, `"""x"""`, `r'\'`, `'\`, `b'\U0010ffff'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i := strings.IndexAny(s, `'"`)
		if i < 0 {
			return
		}
		end, err := ScanString(s, i)
		if err != nil {
			return
		}
		if end <= i || end > len(s) {
			t.Fatalf("%q: end %d", s, end)
		}
		SplitLiteral(s[i:end]).Value() // must not panic
	})
}
