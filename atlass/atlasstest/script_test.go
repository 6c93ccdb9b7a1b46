package atlasstest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadScript(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text string
		want       []Step
		err        string
	}{
		{"two steps", "\n-- plan --\n{\"a\": 1}\n\n-- solve call --\nfmt.Println(1)\n-- solve --\n<answer>1</answer>\n",
			[]Step{{Phase: "plan", Text: `{"a": 1}`}, {Phase: "solve", Call: true, Text: "fmt.Println(1)"}, {Phase: "solve", Text: "<answer>1</answer>"}}, ""},
		{"text first", "hello\n-- plan --\n{}", nil, ":1: text before the first section"},
		{"bad header", "-- plan reply --\n{}", nil, `:1: bad section header "-- plan reply --"`},
		{"empty", "", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadScript(path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("ReadScript = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}
