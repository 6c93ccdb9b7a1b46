package chat

import (
	"encoding/json"
	"strings"
	"testing"
)

// renderVar renders src with one variable d (JSON, key order kept).
func renderVar(t *testing.T, src, d string) (string, error) {
	t.Helper()
	tmpl, err := New(src, SpecialTokens{})
	if err != nil {
		t.Fatal(err)
	}
	return tmpl.Render([]Message{{Role: "user", Content: "hi"}}, Options{Vars: map[string]any{"d": json.RawMessage(d)}})
}

// The expected outputs are those of Python 3's json.dumps with the same
// arguments, which is what transformers' tojson filter calls.
func TestToJSONArguments(t *testing.T) {
	const d = `{"b": [1, {}, []], "a": {"é": "ü", "x": null, "t": true}, "c": "😀\u2028"}`
	tests := []struct {
		name, args, want string
	}{
		{"default", "", "{\"b\": [1, {}, []], \"a\": {\"é\": \"ü\", \"x\": null, \"t\": true}, \"c\": \"😀\u2028\"}"},
		{"indent 2", "(indent=2)", "{\n  \"b\": [\n    1,\n    {},\n    []\n  ],\n  \"a\": {\n    \"é\": \"ü\",\n    \"x\": null,\n    \"t\": true\n  },\n  \"c\": \"😀\u2028\"\n}"},
		{"indent 0", "(indent=0)", "{\n\"b\": [\n1,\n{},\n[]\n],\n\"a\": {\n\"é\": \"ü\",\n\"x\": null,\n\"t\": true\n},\n\"c\": \"😀\u2028\"\n}"},
		{"indent tab", "(indent='\\t')", "{\n\t\"b\": [\n\t\t1,\n\t\t{},\n\t\t[]\n\t],\n\t\"a\": {\n\t\t\"é\": \"ü\",\n\t\t\"x\": null,\n\t\t\"t\": true\n\t},\n\t\"c\": \"😀\u2028\"\n}"},
		{"compact separators", "(separators=[',', ':'])", "{\"b\":[1,{},[]],\"a\":{\"é\":\"ü\",\"x\":null,\"t\":true},\"c\":\"😀\u2028\"}"},
		{"sort_keys", "(sort_keys=true)", "{\"a\": {\"t\": true, \"x\": null, \"é\": \"ü\"}, \"b\": [1, {}, []], \"c\": \"😀\u2028\"}"},
		{"ensure_ascii", "(ensure_ascii=true)", "{\"b\": [1, {}, []], \"a\": {\"\\u00e9\": \"\\u00fc\", \"x\": null, \"t\": true}, \"c\": \"\\ud83d\\ude00\\u2028\"}"},
		{"ensure_ascii positional", "(true)", "{\"b\": [1, {}, []], \"a\": {\"\\u00e9\": \"\\u00fc\", \"x\": null, \"t\": true}, \"c\": \"\\ud83d\\ude00\\u2028\"}"},
		{"indent with separators", "(indent=2, separators=[', ', ' = '])", "{\n  \"b\" = [\n    1, \n    {}, \n    []\n  ], \n  \"a\" = {\n    \"é\" = \"ü\", \n    \"x\" = null, \n    \"t\" = true\n  }, \n  \"c\" = \"😀\u2028\"\n}"},
		{"indent none", "(indent=none)", "{\"b\": [1, {}, []], \"a\": {\"é\": \"ü\", \"x\": null, \"t\": true}, \"c\": \"😀\u2028\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderVar(t, "{{ d | tojson"+tt.args+" }}", d)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestToJSONNumbers(t *testing.T) {
	// JSON number -> Python's json.dumps(json.loads(number)).
	tests := []struct {
		name, in, want string
	}{
		{"int", "42", "42"},
		{"negative int", "-7", "-7"},
		{"int64 max", "9223372036854775807", "9223372036854775807"},
		{"integral float", "1.0", "1.0"},
		{"exponent is a float", "1e2", "100.0"},
		{"seven digits", "1234567.0", "1234567.0"},
		{"below 1e16", "1e15", "1000000000000000.0"},
		{"largest positional", "9999999999999998.0", "9999999999999998.0"},
		{"1e16 turns exponential", "1e16", "1e+16"},
		{"1e-4 stays positional", "0.0001", "0.0001"},
		{"small positional", "0.00012345", "0.00012345"},
		{"1e-5 turns exponential", "0.00001", "1e-05"},
		{"exponent with digits", "1.5e-7", "1.5e-07"},
		{"rounded to shortest", "123456789012345678.0", "1.2345678901234568e+17"},
		{"shortest repr", "0.30000000000000004", "0.30000000000000004"},
		{"negative zero", "-0.0", "-0.0"},
		{"negative fraction", "-3.25", "-3.25"},
		{"three digit exponent", "1e100", "1e+100"},
		{"subnormal", "5e-324", "5e-324"},
		{"max float", "1.7976931348623157e308", "1.7976931348623157e+308"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderVar(t, "{{ d | tojson }}", tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%s: got %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestToJSONStrings(t *testing.T) {
	// Python: json.dumps(s, ensure_ascii=False).
	in := "q\" b\\ / \n\r\t\b\f \x00\x01\x1f \x7f é \u2028\u2029 \ufeff 😀 </script>&'"
	want := `"q\" b\\ / \n\r\t\b\f \u0000\u0001\u001f ` + "\x7f é \u2028\u2029 \ufeff 😀 </script>&'\""
	var b strings.Builder
	writeJSONString(&b, in, false)
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
	// Python: json.dumps(s, ensure_ascii=True).
	b.Reset()
	writeJSONString(&b, "é\u2028😀\x7f", true)
	if want := `"\u00e9\u2028\ud83d\ude00` + "\x7f\""; b.String() != want {
		t.Errorf("ensure_ascii: got %q, want %q", b.String(), want)
	}
}

func TestToJSONErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"undefined", "{{ missing | tojson }}", "not JSON serializable"},
		{"unknown argument", "{{ d | tojson(pretty=true) }}", "unexpected argument pretty"},
		{"bad indent", "{{ d | tojson(indent=[1]) }}", "indent must be"},
		{"bad separators", "{{ d | tojson(separators=[',']) }}", "separators must be two strings"},
		{"argument twice", "{{ d | tojson(true, ensure_ascii=false) }}", "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderVar(t, tt.src, `{"a": 1}`)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
