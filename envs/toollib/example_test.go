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

func ExampleLibrary_Search() {
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
	lib, err := toollib.Open(filepath.Join(dir, "tools.json"))
	if err != nil {
		panic(err)
	}
	for _, src := range []string{
		"// gcd returns the greatest common divisor of a and b.\n//\n//\tgcd(12, 18) == 6\nfunc gcd(a, b int) int {\n\tfor b != 0 {\n\t\ta, b = b, a%b\n\t}\n\treturn a\n}",
		"// square returns x times x.\n//\n//\tsquare(1.5) == 2.25\nfunc square(x float64) float64 { return x * x }",
	} {
		t, err := toollib.ParseTool(src)
		if err != nil {
			panic(err)
		}
		if err := lib.Add(context.Background(), s, t); err != nil {
			panic(err)
		}
	}
	fmt.Print(toollib.Listing(lib.Search("common divisor", 3)))

	// A rollout session of a task about divisors can call gcd directly.
	a := &toollib.Augment{Inner: s, Lib: lib, K: 1}
	sess := a.OpenSession(envs.Task{Prompt: "What is the greatest common divisor of 84 and 36?"})
	defer sess.Close()
	fmt.Print(sess.Call(context.Background(), "fmt.Println(gcd(84, 36))").Output)
	// Output:
	// func gcd(a, b int) int // gcd returns the greatest common divisor of a and b.
	// 12
}
