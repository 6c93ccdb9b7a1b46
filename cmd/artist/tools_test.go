package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/artist-rl/artist/envs/toollib"
)

func toolFixture(name string) string {
	return filepath.Join("..", "..", "envs", "toollib", "testdata", name)
}

// jsonLibrary writes a JSON library file of the named fixtures plus one
// tool whose example is in the old printed form, and returns its path.
func jsonLibrary(t *testing.T, fixtures ...string) string {
	t.Helper()
	var tools []toollib.Tool
	for _, f := range fixtures {
		src, err := os.ReadFile(toolFixture(f))
		if err != nil {
			t.Fatal(err)
		}
		tool, err := toollib.ParseTool(string(src))
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	tools = append(tools, toollib.Tool{Name: "evens", Source: "// evens lists the even numbers below n.\n//\tevens(5) == [0 2 4]\nfunc evens(n int) []int { return nil }"})
	data, err := json.Marshal(map[string]any{"tools": tools})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestToolsCommand(t *testing.T) {
	t.Setenv("USER", "dave")
	db := filepath.Join(t.TempDir(), "tools.db")
	old := jsonLibrary(t, "gcd.go", "binomial.go")
	const (
		gcd    = "func gcd(a, b int) int // gcd returns the greatest common divisor of two integers a and b, which must not both be zero.\n"
		prime  = "func isPrime(n int) bool // isPrime reports whether n is a prime number, by trial division.\n"
		digits = "func digitSum(n int) int // digitSum returns the sum of the decimal digits of n, ignoring its sign.\n"
	)
	steps := []struct {
		name   string
		args   []string
		code   int
		stdout string // exact, or with contains, parts that must appear
		stderr string
		parts  bool
	}{
		{"list missing db", []string{"list", "-db", db}, 1, "", "tool database " + db + " does not exist", false},
		{"search missing db", []string{"search", "-db", db, "gcd"}, 1, "", "does not exist: check -db, or create it by adding tools", false},
		{"add two pending", []string{"add", "-db", db, toolFixture("gcd.go"), toolFixture("isprime.go")}, 0,
			"added 1 func gcd(a, b int) int (3 cases, pending)\nadded 2 func isPrime(n int) bool (3 cases, pending)\n", "", false},
		{"nothing approved", []string{"search", "-db", db, "gcd"}, 0, "", "no approved tools in " + db + " yet (2 waiting or rejected): see artist tools pending", false},
		{"add approved, then a failing one", []string{"add", "-db", db, "-approve", "-by", "ada", toolFixture("digitsum.go"), toolFixture("wrong.go")}, 1,
			"added 3 func digitSum(n int) int (2 cases, approved by ada)\n", `wrong.go: toollib: add triple: toollib: verify triple: case triple(2): got 6, want 7`, false},
		{"add duplicate", []string{"add", "-db", db, toolFixture("gcd.go")}, 1, "", "already in the database", false},
		{"add missing file", []string{"add", "-db", db, "nope.go"}, 1, "", "nope.go", false},
		{"pending tools are not searched", []string{"search", "-db", db, "greatest", "common", "divisor"}, 0, "", "no approved tools match the query (1 approved tools in", false},
		{"search pending", []string{"search", "-db", db, "-state", "pending", "greatest", "common", "divisor"}, 0, "1\tpending\t" + gcd, "", false},
		{"pending", []string{"pending", "-db", db}, 0, "1\tpending\tfunc gcd(a, b int) int // gcd returns|\t(from human, added |2\tpending\tfunc isPrime", "", true},
		{"approve with flags after the id", []string{"approve", "-db", db, "1", "-by", "bob"}, 0, "approved 1 gcd (by bob)\n", "", false},
		{"approve twice", []string{"approve", "-db", db, "1"}, 1, "", "already approved by bob", false},
		{"reject without reason", []string{"reject", "-db", db, "2"}, 2, "", "say why with -reason TEXT", false},
		{"reject", []string{"reject", "-db", db, "2", "-reason", "too slow", "-by", "carol"}, 0, "rejected 2 isPrime (by carol)\n", "", false},
		{"list", []string{"list", "-db", db}, 0, "3\tapproved\t" + digits + "1\tapproved\t" + gcd + "2\trejected\t" + prime, "", false},
		{"list one state", []string{"list", "-db", db, "-state", "rejected"}, 0, "2\trejected\t" + prime, "", false},
		{"list bad state", []string{"list", "-db", db, "-state", "maybe"}, 1, "", `unknown state "maybe" (valid: pending, approved, rejected)`, false},
		{"search", []string{"search", "-db", db, "-k", "1", "greatest", "common", "divisor"}, 0, "1\tapproved\t" + gcd, "", false},
		{"search without a match", []string{"search", "-db", db, "zebra"}, 0, "", "no approved tools match the query (2 approved tools in", false},
		{"show", []string{"show", "-db", db, "2"}, 0,
			"id: 2\nname: isPrime\nstate: rejected by carol at |reason: too slow\norigin: human\n|uses: 0\nsignature: func isPrime(n int) bool\nverified: true\n  ok isPrime(97) == true\n|source:\n// isPrime reports", "", true},
		{"approve as $USER", []string{"approve", "-db", db, "2"}, 0, "approved 2 isPrime (by dave)\n", "", false},
		{"show bad id", []string{"show", "-db", db, "x"}, 2, "", `ID must be a tool id (a number, as tools list prints), got "x"`, false},
		{"show missing id", []string{"show", "-db", db, "99"}, 1, "", "no such tool with id 99", false},
		{"import", []string{"import", "-db", db, "-approve", old}, 1, "imported 1 tools from " + old + " (approved by dave)\n",
			`tool 3 (evens): toollib: func evens: example "evens(5) == [0 2 4]": WANT "[0 2 4]" is not a Go value`, false},
		{"imported tool", []string{"show", "-db", db, "4"}, 0, "name: binomial\nstate: approved by dave|origin: import, run " + old, "", true},
		{"json database", []string{"list", "-db", old}, 1, "", "convert it with `artist tools import -db tools.db " + old + "`", false},
		{"no subcommand", []string{}, 2, "", "usage: artist tools COMMAND", false},
		{"unknown subcommand", []string{"drop"}, 2, "", `unknown subcommand "drop"`, false},
		{"no db", []string{"list"}, 2, "", "-db FILE is required", false},
		{"no files", []string{"add", "-db", db}, 2, "", "at least one SOURCE.go", false},
		{"no query", []string{"search", "-db", db}, 2, "", "give a QUERY", false},
		{"no id", []string{"approve", "-db", db}, 2, "", "give one tool ID", false},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(append([]string{"tools"}, s.args...)...)
			ok := stdout == s.stdout
			if s.parts {
				ok = true
				for _, p := range strings.Split(s.stdout, "|") {
					ok = ok && strings.Contains(stdout, p)
				}
			}
			if code != s.code || !ok || !strings.Contains(stderr, s.stderr) {
				t.Errorf("exit %d\nstdout %q\nstderr %q\nwant exit %d, stdout %q, stderr with %q", code, stdout, stderr, s.code, s.stdout, s.stderr)
			}
		})
	}
	t.Run("no one to decide", func(t *testing.T) {
		t.Setenv("USER", "")
		if code, _, stderr := runCLI("tools", "reject", "-db", db, "3", "-reason", "x"); code != 2 || !strings.Contains(stderr, "$USER is not set") {
			t.Errorf("exit %d, stderr %q; want a usage error asking for -by", code, stderr)
		}
	})
}
