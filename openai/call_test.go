package openai

import (
	"strings"
	"testing"
)

func TestFunctionCallObject(t *testing.T) {
	cases := []struct {
		call    FunctionCall
		want    string
		wantErr string
	}{
		{FunctionCall{Name: "f", Arguments: ` {"a": 1} `}, `{"name": "f", "arguments": {"a": 1}}`, ""},
		{FunctionCall{Name: "g"}, `{"name": "g", "arguments": {}}`, ""},
		{FunctionCall{Name: "h", Arguments: `[1]`}, "", "arguments of h are not a JSON object"},
		{FunctionCall{Name: "h", Arguments: `{"a":`}, "", "arguments of h are not a JSON object"},
	}
	for _, c := range cases {
		got, err := c.call.Object()
		if got != c.want || (c.wantErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%+v.Object() = %q, %v; want %q, %q", c.call, got, err, c.want, c.wantErr)
		}
	}
}
