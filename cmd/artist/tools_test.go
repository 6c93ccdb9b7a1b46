package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func toolFixture(name string) string {
	return filepath.Join("..", "..", "envs", "toollib", "testdata", name)
}

func TestToolsCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tools.json")
	gcdLine := "func gcd(a, b int) int // gcd returns the greatest common divisor of two integers a and b, which must not both be zero.\n"
	primeLine := "func isPrime(n int) bool // isPrime reports whether n is a prime number, by trial division.\n"
	steps := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"list missing db", []string{"list", "-db", db}, 0, "", ""},
		{"add two", []string{"add", "-db", db, toolFixture("gcd.go"), toolFixture("isprime.go")}, 0,
			"added func gcd(a, b int) int (3 cases)\nadded func isPrime(n int) bool (3 cases)\n", ""},
		{"add failing", []string{"add", "-db", db, toolFixture("digitsum.go"), toolFixture("wrong.go")}, 1,
			"added func digitSum(n int) int (2 cases)\n", `wrong.go: toollib: add triple: toollib: verify triple: case triple(2): got "6", want "7"`},
		{"add duplicate", []string{"add", "-db", db, toolFixture("gcd.go")}, 1, "", "already in the library"},
		{"add missing file", []string{"add", "-db", db, "nope.go"}, 1, "", "nope.go"},
		{"list", []string{"list", "-db", db}, 0,
			"func digitSum(n int) int // digitSum returns the sum of the decimal digits of n, ignoring its sign.\n" + gcdLine + primeLine, ""},
		{"search", []string{"search", "-db", db, "-k", "1", "greatest", "common", "divisor"}, 0, gcdLine, ""},
		{"search primes", []string{"search", "-db", db, "is", "97", "prime?"}, 0, primeLine, ""},
		{"search nothing", []string{"search", "-db", db, "zebra"}, 0, "", ""},
		{"no subcommand", []string{}, 2, "", "usage: artist tools add"},
		{"unknown subcommand", []string{"drop"}, 2, "", `unknown subcommand "drop"`},
		{"no db", []string{"list"}, 2, "", "-db FILE is required"},
		{"no files", []string{"add", "-db", db}, 2, "", "at least one SOURCE.go"},
		{"no query", []string{"search", "-db", db}, 2, "", "give a QUERY"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"tools"}, s.args...)...)
			if code != s.code || stdout != s.stdout || !strings.Contains(stderr, s.stderr) {
				t.Errorf("exit %d\nstdout %q\nstderr %q\nwant exit %d, stdout %q, stderr with %q", code, stdout, stderr, s.code, s.stdout, s.stderr)
			}
		})
	}
	t.Run("malformed db", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.json")
		if err := os.WriteFile(bad, []byte("[1,"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := runCLI("tools", "list", "-db", bad); code != 1 || !strings.Contains(stderr, bad) {
			t.Errorf("exit %d, stderr %q; want 1 naming the file", code, stderr)
		}
	})
}
