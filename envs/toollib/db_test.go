package toollib

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

// openTemp opens a new database in a temporary folder, closed when the
// test ends.
func openTemp(t testing.TB) *DB {
	t.Helper()
	d, err := OpenDB(filepath.Join(t.TempDir(), "tools.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// fixtureDB returns a database holding the four good fixtures, approved.
func fixtureDB(t testing.TB, run envs.Tool) *DB {
	t.Helper()
	d := openTemp(t)
	for _, name := range []string{"gcd", "isprime", "digitsum", "binomial"} {
		if _, err := d.Add(context.Background(), run, fixture(t, name), Provenance{Source: "human"}, Approved); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestDBAdd(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, 2*time.Second)
	d := openTemp(t)
	p := Provenance{Task: "t1", Run: "runs/a", Source: "atlass"}
	before := time.Now().Add(-time.Second)
	id, err := d.Add(ctx, s, fixture(t, "gcd"), p, Pending)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Tool.Name != "gcd" || len(got.Tool.Cases) != 3 || got.State != Pending || got.Provenance != p ||
		!got.Verified || !strings.HasPrefix(got.VerifyLog, "ok gcd(12, 18) == 6\n") || got.Uses != 0 ||
		got.Decider != "" || !got.DecidedAt.IsZero() || got.Created.Before(before) {
		t.Errorf("Get(%d) = %+v", id, got)
	}
	if byName, err := d.ByName(context.Background(), "gcd"); err != nil || byName.ID != id {
		t.Errorf("ByName(gcd) = %+v, %v", byName, err)
	}
	rejects := []struct {
		name  string
		tool  Tool
		p     Provenance
		state State
		want  string
	}{
		{"duplicate", fixture(t, "gcd"), p, Pending, "gcd: a tool of that name is already in the database"},
		{"failing case", fixture(t, "wrong"), p, Pending, "add triple: toollib: verify triple: case triple(2): got 6, want 7"},
		{"invalid name", Tool{Name: "1x", Source: fixture(t, "gcd").Source}, p, Pending, `name "1x" is not a valid Go identifier`},
		{"name differs from source", Tool{Name: "lcm", Source: fixture(t, "gcd").Source}, p, Pending, "source declares gcd"},
		{"case not calling the tool", withCases(fixture(t, "isprime"), Case{Expr: "true", Want: "true"}), p, Pending, `case "true": not one expression that calls isPrime`},
		{"case with two statements", withCases(fixture(t, "isprime"), Case{Expr: "isPrime(2)\nfmt.Println(1)", Want: "true"}), p, Pending, "not one expression"},
		{"case with a bad want", withCases(fixture(t, "isprime"), Case{Expr: "isPrime(2)", Want: "true); x("}), p, Pending, "is not a Go value"},
		{"unknown state", fixture(t, "isprime"), p, "maybe", `unknown state "maybe"`},
		{"unknown source", fixture(t, "isprime"), Provenance{Source: "web"}, Pending, `unknown provenance source "web" (valid: human, atlass, grow, import)`},
	}
	for _, r := range rejects {
		t.Run(r.name, func(t *testing.T) {
			if _, err := d.Add(ctx, s, r.tool, r.p, r.state); err == nil || !strings.Contains(err.Error(), r.want) {
				t.Errorf("Add error = %v, want %q", err, r.want)
			}
		})
	}
	if n := d.Len(); n != 1 {
		t.Errorf("Len = %d after the rejects, want 1", n)
	}
	for _, lookup := range []func() error{
		func() error { _, err := d.Get(context.Background(), 99); return err },
		func() error { _, err := d.ByName(context.Background(), "nope"); return err },
	} {
		if err := lookup(); !errors.Is(err, ErrNotFound) {
			t.Errorf("lookup of a missing tool: %v, want ErrNotFound", err)
		}
	}
}

// withCases returns t with cases in place of its own.
func withCases(t Tool, cases ...Case) Tool {
	t.Cases = cases
	return t
}

func TestDBApproval(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, 2*time.Second)
	d := openTemp(t)
	id, err := d.Add(ctx, s, fixture(t, "isprime"), Provenance{Source: "grow"}, Pending)
	if err != nil {
		t.Fatal(err)
	}
	found := func(states ...State) bool {
		recs, err := d.Search(context.Background(), "prime number", 3, states...)
		if err != nil {
			t.Fatal(err)
		}
		return len(recs) == 1 && recs[0].ID == id
	}
	listed := func(states ...State) bool {
		recs, err := d.List(context.Background(), states...)
		if err != nil {
			t.Fatal(err)
		}
		return len(recs) == 1 && recs[0].ID == id
	}
	if found() || listed() || !found(Pending) || !listed(Pending) {
		t.Fatal("a pending tool is searched or listed as approved, or not as pending")
	}
	steps := []struct {
		name string
		do   func() error
		want string // error text; "" for success
	}{
		{"approve without who", func() error { return d.Approve(context.Background(), id, " ") }, "name who decides"},
		{"approve", func() error { return d.Approve(context.Background(), id, "ada") }, ""},
		{"approve twice", func() error { return d.Approve(context.Background(), id, "bob") }, "already approved by ada"},
		{"reject without reason", func() error { return d.Reject(context.Background(), id, "bob", "") }, "give the reason"},
		{"reject unknown", func() error { return d.Reject(context.Background(), 42, "bob", "x") }, "no such tool with id 42"},
		{"reject", func() error { return d.Reject(context.Background(), id, "bob", "slow") }, ""},
	}
	for _, st := range steps {
		err := st.do()
		if (st.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), st.want)) {
			t.Fatalf("%s: error %v, want %q", st.name, err, st.want)
		}
		if st.name == "approve" {
			r, _ := d.Get(context.Background(), id)
			if r.State != Approved || r.Decider != "ada" || time.Since(r.DecidedAt) > time.Minute || !found() || !listed() {
				t.Fatalf("after approve: %+v", r)
			}
		}
	}
	r, _ := d.Get(context.Background(), id)
	if r.State != Rejected || r.Decider != "bob" || r.Reason != "slow" || found() || !found(Rejected) {
		t.Errorf("after reject: %+v", r)
	}
	if err := d.Approve(context.Background(), id, "ada"); err != nil {
		t.Fatal(err)
	}
	if r, _ := d.Get(context.Background(), id); r.Reason != "" || r.State != Approved {
		t.Errorf("approving a rejected tool: %+v, want approved without a reason", r)
	}
}

func TestDBSearch(t *testing.T) {
	d := fixtureDB(t, newSandbox(t, 2*time.Second))
	cases := []struct {
		name, query string
		k           int
		want        string
	}{
		{"gcd by description", "greatest common divisor of two numbers", 3, "gcd"},
		{"name words", "is it prime", 4, "isPrime"},
		{"camelCase query", "digitSum", 4, "digitSum"},
		{"stemming", "the primes", 4, "isPrime"},
		{"examples and signature", "digits of 4821", 1, "digitSum"},
		{"k zero", "prime", 0, ""},
		{"no match", "zebra crossing", 4, ""},
		{"stop words only", "what is the", 4, ""},
		{"punctuation is no syntax", `prime" OR (NOT`, 4, "isPrime"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, err := d.Search(context.Background(), c.query, c.k)
			if err != nil {
				t.Fatal(err)
			}
			got := recordNames(recs)
			if got != c.want && !strings.HasPrefix(got, c.want+" ") || (c.want == "" && got != "") {
				t.Errorf("Search(%q, %d) = %q, want %q first", c.query, c.k, got, c.want)
			}
		})
	}
	if _, err := d.Search(context.Background(), "prime", 1, "maybe"); err == nil || !strings.Contains(err.Error(), `unknown state "maybe"`) {
		t.Errorf("Search with a bad state: %v", err)
	}
}

func recordNames(recs []Record) string {
	ns := make([]string, len(recs))
	for i, r := range recs {
		ns[i] = r.Tool.Name
	}
	return strings.Join(ns, " ")
}

func TestDBMarkUsed(t *testing.T) {
	d := fixtureDB(t, newSandbox(t, 2*time.Second))
	gcd, _ := d.ByName(context.Background(), "gcd")
	prime, _ := d.ByName(context.Background(), "isPrime")
	if err := d.MarkUsed(context.Background(), gcd.ID, prime.ID, gcd.ID); err != nil {
		t.Fatal(err)
	}
	if err := d.MarkUsed(context.Background(), gcd.ID, 99); !errors.Is(err, ErrNotFound) {
		t.Errorf("MarkUsed of an unknown id: %v, want ErrNotFound", err)
	}
	g, _ := d.Get(context.Background(), gcd.ID)
	p, _ := d.Get(context.Background(), prime.ID)
	if g.Uses != 2 || p.Uses != 1 {
		t.Errorf("uses gcd %d, isPrime %d; want 2 and 1 (the failed call changes nothing)", g.Uses, p.Uses)
	}
}

func TestOpenDBRefusesJSON(t *testing.T) {
	dir := t.TempDir()
	disguised := filepath.Join(dir, "tools.db")
	if err := os.WriteFile(disguised, []byte(`{"tools": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "tools.json"), disguised} {
		_, err := OpenDB(path)
		if err == nil || !strings.Contains(err.Error(), "artist tools import -db") || !strings.Contains(err.Error(), path) {
			t.Errorf("OpenDB(%s) error = %v, want one naming the file and artist tools import", path, err)
		}
	}
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte("this is not a database, not at all, and long enough to tell"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDB(garbage); err == nil || !strings.Contains(err.Error(), garbage) {
		t.Errorf("OpenDB(garbage) error = %v, want one naming it", err)
	}
}

// TestDBStopsOnContext: every read and write gives up with the context's
// error once it has ended, and the stored tools are untouched.
func TestDBStopsOnContext(t *testing.T) {
	d := fixtureDB(t, newSandbox(t, 2*time.Second))
	gcd, err := d.ByName(context.Background(), "gcd")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Search":   func() error { _, err := d.Search(ctx, "greatest common divisor", 3); return err },
		"Get":      func() error { _, err := d.Get(ctx, gcd.ID); return err },
		"ByName":   func() error { _, err := d.ByName(ctx, "gcd"); return err },
		"List":     func() error { _, err := d.List(ctx); return err },
		"MarkUsed": func() error { return d.MarkUsed(ctx, gcd.ID) },
		"Reject":   func() error { return d.Reject(ctx, gcd.ID, "tester", "why") },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s after cancel: %v, want context.Canceled", name, err)
		}
	}
	after, _ := d.Get(context.Background(), gcd.ID)
	if after.Uses != 0 || after.State != Approved {
		t.Errorf("a cancelled call changed gcd: uses %d, state %s", after.Uses, after.State)
	}
}
