package toollib_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/envs/toollib"
)

func ExampleDB() {
	ctx := context.Background()
	s, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	dir, err := os.MkdirTemp("", "toollib")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := toollib.OpenDB(filepath.Join(dir, "tools.db"))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	var ids []int64
	for _, src := range []string{
		"// gcd returns the greatest common divisor of a and b.\n//\n//\tgcd(12, 18) == 6\nfunc gcd(a, b int) int {\n\tfor b != 0 {\n\t\ta, b = b, a%b\n\t}\n\treturn a\n}",
		"// reverse returns s with its runes in reverse order.\n//\n//\treverse(\"hello\") == \"olleh\"\nfunc reverse(s string) string {\n\tr := []rune(s)\n\tfor i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {\n\t\tr[i], r[j] = r[j], r[i]\n\t}\n\treturn string(r)\n}",
	} {
		t, err := toollib.ParseTool(src)
		if err != nil {
			panic(err)
		}
		id, err := db.Add(ctx, s, t, toollib.Provenance{Source: "human"}, toollib.Pending)
		if err != nil {
			panic(err)
		}
		ids = append(ids, id)
	}
	// Pending tools are not retrieved; a person approves gcd.
	found, _ := db.Search(context.Background(), "common divisor", 3)
	fmt.Println("before approval:", len(found))
	if err := db.Approve(context.Background(), ids[0], "ada"); err != nil {
		panic(err)
	}
	found, _ = db.Search(context.Background(), "common divisor", 3)
	fmt.Println("after approval:", found[0].Tool.Signature, "approved by", found[0].Decider)

	// A rollout session of a task about divisors can call gcd directly.
	a := &toollib.Augment{Inner: s, Lib: db, K: 1}
	sess := a.OpenSession(envs.Task{Prompt: "What is the greatest common divisor of 84 and 36?"})
	fmt.Print(sess.Call(ctx, "fmt.Println(gcd(84, 36))").Output)
	sess.Close()
	// Output:
	// before approval: 0
	// after approval: func gcd(a, b int) int approved by ada
	// 12
}

func ExampleVerify() {
	s, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	for _, src := range []string{
		// The float prints with all its digits; the string is compared as a value.
		"// grow compounds p at rate r for n years.\n//\tgrow(1000, 0.1, 2) == 1210.0000000000002\n//\tgrow(1000, 0.1, 2) == 1210 (±1e-9)\nfunc grow(p, r float64, n int) float64 { return p * math.Pow(1+r, float64(n)) }",
		"// shout upper-cases s.\n//\tshout(\"hi\") == \"HI\"\nfunc shout(s string) string { return strings.ToUpper(s) }",
		"// half halves n.\n//\thalf(5) == 2.5\nfunc half(n int) int { return n / 2 }",
	} {
		t, err := toollib.ParseTool(src)
		if err != nil {
			panic(err)
		}
		fmt.Println(t.Name, toollib.Verify(context.Background(), s, t))
	}
	// Output:
	// grow <nil>
	// shout <nil>
	// half toollib: verify half: case half(5): got 2, want 2.5
}
