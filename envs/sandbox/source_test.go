package sandbox

import (
	"errors"
	"go/token"
	"slices"
	"strings"
	"testing"
)

func TestParseSource(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    source
		wantErr error
	}{
		{"one statement", "fmt.Println(1)",
			source{chunks: []string{"fmt.Println(1)"}}, nil},
		{"statements joined", "x := 1\ny := 2\nfmt.Println(x + y)\n",
			source{chunks: []string{"x := 1\ny := 2\nfmt.Println(x + y)\n"}}, nil},
		{"import then statements", "import \"math/big\"\nfmt.Println(big.NewInt(1))",
			source{imports: []string{"math/big"}, chunks: []string{"import \"math/big\"\n", "fmt.Println(big.NewInt(1))"}}, nil},
		{"grouped imports", "import (\n\tb \"math/big\"\n\t. \"strings\"\n)\nx := 1",
			source{imports: []string{"math/big", "strings"}, chunks: []string{"import (\n\tb \"math/big\"\n\t. \"strings\"\n)\n", "x := 1"}}, nil},
		{"func with braces on many lines", "func f() {\n\tx := 1\n\t_ = x\n}\nf()",
			source{chunks: []string{"func f() {\n\tx := 1\n\t_ = x\n}\n", "f()"}}, nil},
		{"type and method", "type T int\nfunc (T) M() {}\nvar t T\nt.M()",
			source{chunks: []string{"type T int\n", "func (T) M() {}\n", ";var t T\nt.M()"}}, nil},
		{"const run", "const k = 2\nfmt.Println(k)",
			source{chunks: []string{";const k = 2\nfmt.Println(k)"}}, nil},
		{"comment first", "// hi\nfmt.Println(1)",
			source{chunks: []string{"fmt.Println(1)"}}, nil},
		{"program", "package main\nimport \"fmt\"\nfunc main() {}",
			source{program: true, imports: []string{"fmt"}, chunks: []string{"package main\nimport \"fmt\"\nfunc main() {}"}}, nil},
		{"go inside names and strings", "gopher := \"go\"\nfmt.Println(gopher)",
			source{chunks: []string{"gopher := \"go\"\nfmt.Println(gopher)"}}, nil},
		{"go statement", "go f()", source{}, errGoStatement},
		{"denied import", "import \"os\"", source{}, deniedImportError{path: "os"}},
		{"empty", "", source{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSource(tc.input)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("parseSource(%q) error %v, want %v", tc.input, err, tc.wantErr)
			}
			if got.program != tc.want.program || !slices.Equal(got.imports, tc.want.imports) || !slices.Equal(got.chunks, tc.want.chunks) {
				t.Errorf("parseSource(%q) = %#v, want %#v", tc.input, got, tc.want)
			}
		})
	}
}

func TestPreImports(t *testing.T) {
	tests := []struct {
		name string
		own  []string
		want string
	}{
		{"none imported", nil, `import ("fmt"; "math"; "strconv"; "strings")`},
		{"fmt imported", []string{"fmt", "math/big"}, `import ("math"; "strconv"; "strings")`},
		{"all imported", []string{"strings", "strconv", "math", "fmt"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := preImports(tc.own); got != tc.want {
				t.Errorf("preImports(%q) = %q, want %q", tc.own, got, tc.want)
			}
		})
	}
}

// FuzzParseSource checks that splitting a snippet loses and reorders
// nothing: the chunks, without the semicolons added in front of var and
// const runs, are the input from its first token other than a semicolon.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{
		"fmt.Println(1)", "import \"fmt\"\nx := 1", "func f() {\n}\nvar a = []int{\n1,\n}\nf()",
		"type T struct{ a, b int }\nconst c = 1", "x := (\n1 +\n2)\nfunc g() {}", "}}}{{", "import (", "\"unterminated", "; ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		src, err := parseSource(input)
		if err != nil || src.program {
			return
		}
		lx := slices.DeleteFunc(lex(input), func(l lexeme) bool { return l.tok == token.SEMICOLON })
		if len(lx) == 0 {
			if len(src.chunks) != 0 {
				t.Fatalf("chunks %q from an input without tokens", src.chunks)
			}
			return
		}
		var joined strings.Builder
		for _, c := range src.chunks {
			if c == "" {
				t.Fatalf("empty chunk in %q", src.chunks)
			}
			joined.WriteString(c)
		}
		rest := input[lx[0].off:]
		if got := joined.String(); got != rest && strings.ReplaceAll(got, ";", "") != strings.ReplaceAll(rest, ";", "") {
			t.Fatalf("chunks %q do not rebuild %q", src.chunks, rest)
		}
	})
}

func TestWithoutBound(t *testing.T) {
	bound := map[string]string{"fmt": "fmt", "big": "math/big", "s": "strings"}
	tests := []struct {
		name, input string
		want        []string // chunks
		dropped     bool
	}{
		{"bound import removed", "import \"fmt\"\nfmt.Println(1)", []string{"fmt.Println(1)"}, true},
		{"group keeps the new specs", "import (\n\t\"math/big\"\n\t\"sort\"\n)\nx := 1", []string{"import (\"sort\")\n", "x := 1"}, true},
		{"same name for another path is kept", "import big \"math/bits\"", []string{"import big \"math/bits\""}, false},
		{"aliased bound import removed", "import s \"strings\"\nimport b \"math/big\"", []string{"import b \"math/big\""}, true},
		{"blank and dot imports are kept", "import _ \"fmt\"\nimport . \"fmt\"", []string{"import _ \"fmt\"\n", "import . \"fmt\""}, false},
		{"program", "package main\nimport (\"fmt\"; \"sort\")\nfunc main() {}", []string{"package main\nimport (\"sort\")\nfunc main() {}"}, true},
		{"nothing imported", "fmt.Println(2)", []string{"fmt.Println(2)"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := parseSource(tc.input)
			if err != nil {
				t.Fatal(err)
			}
			got, dropped := src.withoutBound(bound)
			if dropped != tc.dropped || !slices.Equal(got.chunks, tc.want) {
				t.Errorf("withoutBound(%q) = %q, %v; want %q, %v", tc.input, got.chunks, dropped, tc.want, tc.dropped)
			}
		})
	}
}
