package pyval

import (
	"strings"
	"testing"
)

// FuzzJSONRoundTrip checks that JSON text decoded, encoded and decoded
// again gives an identical value: key order and int/float kept.
func FuzzJSONRoundTrip(f *testing.F) {
	for _, s := range []string{`{"b": [1, 2.5, -0.0, 1e300], "a": {"x": "it's \u00e9\n"}}`, `[true, null, "\ud83d\ude00"]`, `1E-7`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := DecodeJSON([]byte(s))
		if err != nil {
			return
		}
		text, err := JSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text, "Infinity") {
			return // an overflowing literal; DecodeJSON does not read Infinity back
		}
		w, err := DecodeJSON([]byte(text))
		if err != nil {
			t.Fatalf("re-decode %s: %v", text, err)
		}
		if !Identical(v, w) {
			t.Errorf("round trip changed %s into %s", s, text)
		}
		_ = Repr(v)
	})
}
