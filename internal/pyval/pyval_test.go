package pyval

import (
	"math"
	"testing"
)

func TestFormatFloat(t *testing.T) {
	tenth, fifth := 0.1, 0.2
	for i, tc := range []struct {
		f    float64
		want string
	}{
		{47.84, "47.84"}, {100, "100.0"}, {0.0001, "0.0001"}, {1e-05, "1e-05"}, {1e16, "1e+16"},
		{1.5e20, "1.5e+20"}, {9999999999999998, "9999999999999998.0"}, {52.029999999999745, "52.029999999999745"},
		{math.Copysign(0, -1), "-0.0"}, {-5, "-5.0"}, {math.Inf(1), "inf"}, {math.NaN(), "nan"}, {tenth + fifth, "0.30000000000000004"},
	} {
		if got := FormatFloat(tc.f); got != tc.want {
			t.Errorf("case %d: FormatFloat(%v) = %s, want %s", i, tc.f, got, tc.want)
		}
	}
}

func TestRepr(t *testing.T) {
	for i, tc := range []struct {
		v    any
		want string
	}{
		{"it's", `"it's"`}, {`say "hi"`, `'say "hi"'`}, {`both ' and "`, `'both \' and "'`}, {"a\\b", `'a\\b'`},
		{"tab\tnl\ncr\r", `'tab\tnl\ncr\r'`}, {"\x01\x7f", `'\x01\x7f'`}, {"café", "'café'"}, {"\u00a0", `'\xa0'`},
		{"\u2028", `'\u2028'`}, {int64(-3), "-3"}, {true, "True"}, {nil, "None"}, {[]any{int64(1), 2.5}, "[1, 2.5]"},
		{NewDict("a", int64(1), "b", []any{}), "{'a': 1, 'b': []}"},
	} {
		if got := Repr(tc.v); got != tc.want {
			t.Errorf("case %d: Repr = %s, want %s", i, got, tc.want)
		}
	}
}

func TestJSON(t *testing.T) {
	for i, tc := range []struct {
		in, ascii, unicode string
	}{
		{`{"b": 1, "a": [1.0, 2.5e-7, true, null]}`, `{"b": 1, "a": [1.0, 2.5e-07, true, null]}`, ""},
		{`"caf\u00e9 \ud83d\ude00"`, `"caf\u00e9 \ud83d\ude00"`, "\"café \U0001F600\""},
		{`"</tag> & \u007f \b\f\n\r\t \u0001 \" \\"`, `"</tag> & \u007f \b\f\n\r\t \u0001 \" \\"`, "\"</tag> & \x7f \\b\\f\\n\\r\\t \\u0001 \\\" \\\\\""},
		{`{}`, `{}`, ""}, {`1e400`, `Infinity`, ""},
	} {
		v, err := DecodeJSON([]byte(tc.in))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if got := MustJSON(v); got != tc.ascii {
			t.Errorf("case %d: JSON = %s, want %s", i, got, tc.ascii)
		}
		if tc.unicode != "" {
			if got, _ := JSONUnicode(v); got != tc.unicode {
				t.Errorf("case %d: JSONUnicode = %s, want %s", i, got, tc.unicode)
			}
		}
	}
}

func TestDecodeJSONTypes(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"i": 100, "f": 100.0, "e": 1E2, "n": -0, "z": {"y": 1, "x": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	d := v.(*Dict)
	for i, tc := range []struct {
		key  string
		want any
	}{{"i", int64(100)}, {"f", 100.0}, {"e", 100.0}, {"n", int64(0)}} {
		if got, _ := d.Get(tc.key); got != tc.want {
			t.Errorf("case %d: %s = %#v, want %#v", i, tc.key, got, tc.want)
		}
	}
	if keys := d.Dict("z").Keys(); keys[0] != "y" || keys[1] != "x" {
		t.Errorf("key order lost: %v", keys)
	}
	for i, bad := range []string{`{"a": 1} 2`, `[1,`, `99999999999999999999`} {
		if _, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("case %d: DecodeJSON(%s) succeeded", i, bad)
		}
	}
}

func TestEqualAndIdentical(t *testing.T) {
	for i, tc := range []struct {
		a, b             any
		equal, identical bool
	}{
		{int64(1), 1.0, true, false},
		{true, int64(1), true, false},
		{false, 0.0, true, false},
		{int64(250), int64(250), true, true},
		{"1", int64(1), false, false},
		{nil, nil, true, true},
		{nil, false, false, false},
		{[]any{int64(1)}, []any{1.0}, true, false},
		{[]any{int64(1), int64(2)}, []any{int64(2), int64(1)}, false, false},
		{NewDict("a", int64(1), "b", int64(2)), NewDict("b", int64(2), "a", int64(1)), true, false},
		{NewDict("a", int64(1)), NewDict("a", int64(1)), true, true},
		{NewDict("a", int64(1)), NewDict("a", int64(1), "b", nil), false, false},
		{math.Copysign(0, -1), 0.0, true, false},
		{int64(1) << 60, int64(1)<<60 + 1, false, false},
	} {
		if got := Equal(tc.a, tc.b); got != tc.equal {
			t.Errorf("case %d: Equal = %v, want %v", i, got, tc.equal)
		}
		if got := Identical(tc.a, tc.b); got != tc.identical {
			t.Errorf("case %d: Identical = %v, want %v", i, got, tc.identical)
		}
	}
}

func TestArithmeticTyping(t *testing.T) {
	for i, tc := range []struct {
		got, want any
	}{
		{Add(int64(2), int64(3)), int64(5)}, {Add(int64(2), 3.0), 5.0}, {Sub(250.0, int64(5)), 245.0},
		{Mul(int64(50), int64(2)), int64(100)}, {Mul(true, int64(3)), int64(3)}, {Neg(int64(4)), int64(-4)},
		{Neg(2.5), -2.5}, {Abs(int64(-7)), int64(7)}, {Abs(-0.5), 0.5},
		{Round(int64(7), 2), int64(7)}, {Round(2.675, 2), 2.67}, {Round(0.125, 2), 0.12}, {Round(0.375, 2), 0.38},
		{Round(52.029999999999745, 2), 52.03}, {Round(1e300, 2), 1e300},
	} {
		if !Identical(tc.got, tc.want) {
			t.Errorf("case %d: got %#v, want %#v", i, tc.got, tc.want)
		}
	}
	if !Less(int64(1), 1.5) || Less(2.0, int64(2)) {
		t.Error("Less across int and float is wrong")
	}
}

func TestJSONIndent(t *testing.T) {
	v, _ := DecodeJSON([]byte(`[{"a": [], "b": {}, "c": [1, "x"]}]`))
	got, err := JSONIndent(v, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := "[\n {\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n   1,\n   \"x\"\n  ]\n }\n]"
	if got != want {
		t.Errorf("JSONIndent =\n%s\nwant\n%s", got, want)
	}
}

func TestDictOrder(t *testing.T) {
	d := NewDict("x", int64(1), "y", int64(2))
	d.Set("x", int64(3)) // keeps its place
	d.Set("z", int64(4)) // goes last
	d.Delete("y")
	if got := MustJSON(d); got != `{"x": 3, "z": 4}` {
		t.Errorf("got %s", got)
	}
	c := DeepCopy(d).(*Dict)
	c.Set("x", int64(9))
	if v, _ := d.Get("x"); v != int64(3) {
		t.Error("DeepCopy shares its dict with the original")
	}
	if v, ok := NewDict(int64(1), "one").Get(true); !ok || v != "one" {
		t.Error("True does not find the key 1")
	}
}

// TestDictKeepsFirstKey checks that a key keeps the object it was first
// stored with, as in Python: {3.0: 'a'} then d[3] = 'b' is {3.0: 'b'}.
func TestDictKeepsFirstKey(t *testing.T) {
	cases := []struct {
		name        string
		first, then any
		json, repr  string
	}{
		{"float then int", 3.0, int64(3), `{"3.0": "b"}`, `{3.0: 'b'}`},
		{"int then float", int64(3), 3.0, `{"3": "b"}`, `{3: 'b'}`},
		{"bool then int", true, int64(1), `{"true": "b"}`, `{True: 'b'}`},
		{"int then bool", int64(0), false, `{"0": "b"}`, `{0: 'b'}`},
		{"fraction", 2.5, 2.5, `{"2.5": "b"}`, `{2.5: 'b'}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDict(c.first, "a")
			d.Set(c.then, "b")
			if got := MustJSON(d); got != c.json {
				t.Errorf("json %s, want %s", got, c.json)
			}
			if got := Repr(d); got != c.repr {
				t.Errorf("repr %s, want %s", got, c.repr)
			}
			if v, ok := DeepCopy(d).(*Dict).Get(c.then); !ok || v != "b" {
				t.Errorf("copy: Get(%v) = %v, %v", c.then, v, ok)
			}
			if !Equal(d, NewDict(c.then, "b")) {
				t.Error("not equal to the dict keyed by the equal key")
			}
			d.Delete(c.then)
			if d.Len() != 0 || len(d.Keys()) != 0 {
				t.Errorf("Delete(%v) left %v", c.then, d.Keys())
			}
		})
	}
	if Identical(NewDict(3.0, "a"), NewDict(int64(3), "a")) {
		t.Error("dicts keyed 3.0 and 3 are Identical, but their texts differ")
	}
}
