package pyval

import "testing"

func TestTypeName(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{nil, "NoneType"}, {true, "bool"}, {int64(3), "int"}, {3, "int"}, {2.5, "float"},
		{"s", "str"}, {[]any{1}, "list"}, {NewDict(), "dict"}, {struct{}{}, "object"},
	}
	for _, c := range cases {
		if got := TypeName(c.v); got != c.want {
			t.Errorf("TypeName(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestTruthy(t *testing.T) {
	cases := []struct {
		v    any
		want bool
	}{
		{nil, false}, {false, false}, {true, true}, {int64(0), false}, {int64(-2), true}, {0.0, false}, {0.5, true},
		{"", false}, {"x", true}, {[]any{}, false}, {[]any{nil}, true}, {NewDict(), false}, {NewDict("a", int64(1)), true},
		{struct{}{}, true},
	}
	for _, c := range cases {
		if got := Truthy(c.v); got != c.want {
			t.Errorf("Truthy(%#v) = %v, want %v", c.v, got, c.want)
		}
	}
}
