package pyval

import (
	"errors"
	"testing"
)

// TestSpecialValues covers Ellipsis and ReprValue: hashable dict keys,
// printed by repr, refused by json.dumps in Python's words.
func TestSpecialValues(t *testing.T) {
	for _, tc := range []struct {
		v        any
		repr     string
		jsonType string
	}{
		{Ellipsis{}, "Ellipsis", "ellipsis"},
		{ReprValue("mpf('1.5')"), "mpf('1.5')", "mpf"},
	} {
		if got := Repr(tc.v); got != tc.repr {
			t.Errorf("Repr(%#v) = %q, want %q", tc.v, got, tc.repr)
		}
		_, err := JSON([]any{tc.v})
		var nj NotJSONError
		if !errors.As(err, &nj) || nj.Type != tc.jsonType || err.Error() != "Object of type "+tc.jsonType+" is not JSON serializable" {
			t.Errorf("JSON(%#v) error = %v, want NotJSONError{%q}", tc.v, err, tc.jsonType)
		}
		if !Hashable(tc.v) || !Equal(tc.v, tc.v) || Equal(tc.v, "x") {
			t.Errorf("%#v: want hashable and equal only to itself", tc.v)
		}
		d := NewDict(tc.v, int64(1))
		if v, ok := d.Get(tc.v); !ok || v != int64(1) {
			t.Errorf("%#v as a key: Get = %v, %v", tc.v, v, ok)
		}
	}
	if Hashable([]any{}) || Hashable(NewDict()) {
		t.Error("lists and dicts must not be hashable")
	}
	if !Equal(int64(5), 5.0) || !Equal(true, int64(1)) || Equal(int64(5), "5") {
		t.Error("Equal: 5 == 5.0 and True == 1, but 5 != '5'")
	}
}
