package toollib

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/artist-rl/artist/envs"
)

// tolSuffix matches the tolerance that may close a WANT: " (±1e-9)", with
// "+-" or "+/-" accepted for "±".
var tolSuffix = regexp.MustCompile(`^(.*\S)\s+\((?:±|\+-|\+/-)\s*([^()\s]+)\)$`)

// parseWant reads the right side of an example line into a Case (Expr
// left empty): one Go expression per result, separated by commas, none of
// which calls the tool itself, then an optional tolerance, which needs a
// single result.
func parseWant(want, name string) (Case, error) {
	c := Case{Want: want}
	if m := tolSuffix.FindStringSubmatch(want); m != nil {
		c.Want, c.Tol = m[1], m[2]
		v, err := strconv.ParseFloat(c.Tol, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) {
			return Case{}, fmt.Errorf("tolerance %q is not a non-negative number such as 1e-9", c.Tol)
		}
	}
	vals, err := wantValues(c.Want)
	if err != nil {
		return Case{}, err
	}
	if c.Tol != "" && len(vals) != 1 {
		return Case{}, fmt.Errorf("a tolerance applies to one result, but %q has %d", c.Want, len(vals))
	}
	for _, v := range vals {
		e, _ := parser.ParseExpr(v)
		if calls(e, name) {
			return Case{}, fmt.Errorf("WANT %q calls %s itself; write the value it must return", v, name)
		}
	}
	return c, nil
}

// wantValues splits a WANT into the source of its expressions, one per
// result. A WANT that is not a comma-separated list of Go expressions is
// an error that says how to write one.
func wantValues(want string) ([]string, error) {
	const open = "_("
	src := open + want + ")"
	fset := token.NewFileSet()
	e, err := parser.ParseExprFrom(fset, "", src, 0)
	call, ok := e.(*ast.CallExpr)
	if err != nil || !ok || call.Ellipsis.IsValid() || len(call.Args) == 0 ||
		fset.Position(call.Rparen).Offset != len(src)-1 {
		return nil, fmt.Errorf("WANT %q is not a Go value: write it as Go source, such as 6, -2.5, \"olleh\", 'x', true, nil or []int{1, 2}", want)
	}
	vals := make([]string, len(call.Args))
	for i, a := range call.Args {
		vals[i] = src[fset.Position(a.Pos()).Offset:fset.Position(a.End()).Offset]
	}
	return vals, nil
}

// verdictMark starts the line a check snippet prints last.
const verdictMark = "toollib-verdict:"

// Verify runs every case of t in run. Each case is a snippet: t.Source,
// then statements that assign the results of Expr to variables and
// compare each with its WANT as Go would, and print the verdict:
//
//   - a composite literal WANT ([]int{1, 2}, map[string]int{"a": 1},
//     struct{ X int }{1}) equals a result whose Go-syntax rendering (%#v)
//     is the same, so type and contents must both match (maps render
//     sorted by key; values behind nested pointers are not compared);
//   - a WANT with a tolerance equals a numeric result within it:
//     |float64(got) - float64(WANT)| <= TOL;
//   - any other WANT is compared with ==, so an untyped constant takes the
//     result's type (6 equals an int64 6, 1210.0000000000002 is the
//     float64 nearest to it, nil equals a nil slice or error), a WANT of
//     another kind does not compile ("1" for an int), and a constant the
//     type cannot hold (2.5 for an int) is unequal.
//
// The run must end with StatusOK and print the verdict last; what the
// tool prints before it is ignored. The error names the first failing
// case and what came back: a compile error (a WANT of the wrong type
// included), a panic, a timeout, or got versus want with got in Go syntax.
// A tool without cases fails.
func Verify(ctx context.Context, run envs.Tool, t Tool) error {
	if len(t.Cases) == 0 {
		return fmt.Errorf("toollib: verify %s: no cases", t.Name)
	}
	for _, c := range t.Cases {
		if err := verifyCase(ctx, run, t.Source, c); err != nil {
			return fmt.Errorf("toollib: verify %s: case %s: %w", t.Name, c.Expr, err)
		}
	}
	return nil
}

// verifyCase runs one case and reads its verdict.
func verifyCase(ctx context.Context, run envs.Tool, source string, c Case) error {
	wants, err := wantValues(c.Want)
	if err != nil {
		return err
	}
	r := run.Call(ctx, checkSnippet(source, c, wants))
	if r.Status != envs.StatusOK {
		for _, w := range wants {
			if token.IsIdentifier(w) && strings.Contains(r.Output, "undefined: "+w) {
				return fmt.Errorf("%s: %s (a string WANT is written in quotes: %q)", r.Status, strings.TrimSpace(r.Output), w)
			}
		}
		return fmt.Errorf("%s: %s", r.Status, r.Output)
	}
	i := strings.LastIndex(r.Output, "\n"+verdictMark)
	if i < 0 {
		return errors.New("the check printed no verdict")
	}
	verdict, got, _ := strings.Cut(strings.TrimSuffix(r.Output[i+1+len(verdictMark):], "\n"), " ")
	if verdict == "true" {
		return nil
	}
	want := c.Want
	if c.Tol != "" {
		want += " (±" + c.Tol + ")"
	}
	return fmt.Errorf("got %s, want %s", got, want)
}

// checkSnippet is the program of one case: the tool, the results of Expr
// in variables, their comparisons and the verdict line, "\nMARK true" or
// "\nMARK false" followed by the results in Go syntax.
func checkSnippet(source string, c Case, wants []string) string {
	gots := make([]string, len(wants))
	for i := range wants {
		gots[i] = fmt.Sprintf("toollibGot%d", i)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s := %s\ntoollibOK := true\n", source, strings.Join(gots, ", "), c.Expr)
	for i, w := range wants {
		fmt.Fprintf(&b, "toollibOK = toollibOK && %s\n", comparison(gots[i], w, c.Tol))
	}
	verbs := strings.TrimSuffix(strings.Repeat("%#v, ", len(gots)), ", ")
	fmt.Fprintf(&b, "fmt.Printf(%q, toollibOK, %s)\n", "\n"+verdictMark+"%t "+verbs+"\n", strings.Join(gots, ", "))
	return b.String()
}

// comparison is the Go expression that decides whether got equals want.
func comparison(got, want, tol string) string {
	if tol != "" {
		return fmt.Sprintf("math.Abs(float64(%s)-float64(%s)) <= %s", got, want, tol)
	}
	e, _ := parser.ParseExpr(want)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	if _, ok := ast.Unparen(e).(*ast.CompositeLit); ok {
		return fmt.Sprintf("fmt.Sprintf(\"%%#v\", %s) == fmt.Sprintf(\"%%#v\", %s)", got, want)
	}
	if _, ok := e.(*ast.BinaryExpr); ok {
		want = "(" + want + ")"
	}
	return got + " == " + want // the interpreter mishandles a parenthesized nil
}
