package bfcl

import (
	"math"
	"testing"
)

func TestFormatFloat(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{40, "40.0"}, {0.1, "0.1"}, {1e-05, "1e-05"}, {0.0001, "0.0001"}, {1e16, "1e+16"},
		{1234567.0, "1234567.0"}, {123456789012345678, "1.2345678901234568e+17"}, {-2.5, "-2.5"},
		{39.625800000000005, "39.625800000000005"}, {0, "0.0"}, {math.Inf(1), "inf"}, {1.5e-07, "1.5e-07"},
		{9999999999999998, "9999999999999998.0"},
	} {
		if got := FormatFloat(tc.f); got != tc.want {
			t.Errorf("FormatFloat(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestReprAndJSON(t *testing.T) {
	d := NewDict("a", int64(1), int64(2), 2.0, "s", "it's", "u", "é\n<&>", "l", []any{true, nil, Ellipsis{}})
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"repr dict", PyRepr(d), `{'a': 1, 2: 2.0, 's': "it's", 'u': 'é\n<&>', 'l': [True, None, Ellipsis]}`},
		{"repr quotes", PyRepr(`a'b"c`), `'a\'b"c'`},
		{"repr control", PyRepr("\x00\x7f\u00a0"), `'\x00\x7f\xa0'`},
		{"result of dict with Ellipsis", ResultString(d), PyRepr(d)},
		{"result of plain dict", ResultString(NewDict("k", "é<>", "n", int64(3), "f", 3.0, "b", false, "z", nil)),
			`{"k": "\u00e9<>", "n": 3, "f": 3.0, "b": false, "z": null}`},
		{"result of int keys", ResultString(NewDict(int64(5), "x")), `{"5": "x"}`},
		{"result of str", ResultString("plain"), "plain"},
		{"result of None", ResultString(nil), "None"},
		{"result of list", ResultString([]any{"a", int64(1)}), "['a', 1]"},
		{"mpf", ResultString(NewDict("result", Repr("mpf('2.0')"))), "{'result': mpf('2.0')}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

func TestEqualAndDict(t *testing.T) {
	a := NewDict("x", int64(1), "y", []any{1.0, "s"})
	b := NewDict("y", []any{int64(1), "s"}, "x", 1.0)
	if !Equal(a, b) {
		t.Error("dicts equal up to order and 1 == 1.0 compare unequal")
	}
	if Equal(NewDict(int64(1), "a"), NewDict("1", "a")) {
		t.Error("int key 1 equals string key '1'")
	}
	if Equal([]any{int64(1), int64(2)}, []any{int64(2), int64(1)}) {
		t.Error("lists compared without order")
	}
	d := NewDict("a", 1, "b", 2, "c", 3)
	d.Delete("b")
	d.Set("a", 9)
	d.Set("b", 4)
	if got := PyRepr(d); got != "{'a': 9, 'c': 3, 'b': 4}" {
		t.Errorf("order after delete/set: %s", got)
	}
	if _, ok := d.Get([]any{1}); ok {
		t.Error("unhashable key found")
	}
	if v, ok := NewDict(int64(1), "x").Get(true); !ok || v != "x" {
		t.Error("True does not find key 1")
	}
}

func TestDecodeJSONKeepsTypes(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"b": 1, "a": 1.0, "c": [1e2, 12345678901234567], "d": null}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := PyRepr(v); got != "{'b': 1, 'a': 1.0, 'c': [100.0, 12345678901234567], 'd': None}" {
		t.Errorf("got %s", got)
	}
	if _, err := DecodeJSON([]byte(`{"a": 1} x`)); err == nil {
		t.Error("trailing data accepted")
	}
}

func TestPyRandomVectors(t *testing.T) {
	for _, tc := range []struct {
		seed    uint64
		bits    []uint64
		ints    []int64
		uniform []float64
	}{
		{141053, []uint64{4005903735, 621264111, 3547616316}, []int64{251675, 966117, 376965}, []float64{36.63485703790535, 31.29968928699752, 8.546173419897784}},
		{1053520, []uint64{2261486938, 229209566, 2122974597}, []int64{652120, 155959, 618304}, []float64{16.32717268666886, 14.714677309837906, 21.93483211236178}},
		{200191, []uint64{1881223403, 1041125569, 476682860}, []int64{559283, 354181, 216377}, []float64{11.900322751107044, -4.450680978389068, -4.498487046096774}},
	} {
		r1, r2, r3 := newPyRandom(tc.seed), newPyRandom(tc.seed), newPyRandom(tc.seed)
		for i := range 3 {
			if got := r1.getrandbits(32); got != tc.bits[i] {
				t.Errorf("seed %d getrandbits #%d = %d, want %d", tc.seed, i, got, tc.bits[i])
			}
			if got := r2.randint(100000, 999999); got != tc.ints[i] {
				t.Errorf("seed %d randint #%d = %d, want %d", tc.seed, i, got, tc.ints[i])
			}
			if got := r3.uniform(-10, 40); got != tc.uniform[i] {
				t.Errorf("seed %d uniform #%d = %v, want %v", tc.seed, i, got, tc.uniform[i])
			}
		}
	}
	r := newPyRandom(141053)
	if a, b := r.randint(100000000000, 999999999999), r.randint(10000, 99999); a != 262919693687 || b != 44620 {
		t.Errorf("seed 141053 wide randint = %d, %d", a, b)
	}
	r = newPyRandom(200191)
	for i, want := range []int64{67410, 41772, 24547} {
		if got := r.randint(10000, 99999); got != want {
			t.Errorf("seed 200191 randint(10000,99999) #%d = %d, want %d", i, got, want)
		}
	}
}
