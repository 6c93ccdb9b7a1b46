package sandbox_test

import (
	"context"
	"fmt"

	"github.com/artist-rl/artist/envs/sandbox"
)

func Example() {
	s, err := sandbox.New(sandbox.DefaultConfig())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	for _, code := range []string{
		"fmt.Println(4821 * 37)",
		"x := 4821 % 37",
		`import "os"`,
		`panic("no answer")`,
	} {
		r := s.Call(context.Background(), code)
		fmt.Printf("%s: %s\n", r.Status, r.Output)
	}
	// Output:
	// ok: 178377
	//
	// empty: (no output: print the result with fmt.Println)
	// error: error: import "os" is not allowed (allowed: bytes, container/heap, container/list, container/ring, errors, fmt, math, math/big, math/bits, math/cmplx, regexp, sort, strconv, strings, unicode, unicode/utf8)
	// error: error: panic: no answer
}

func ExampleSandbox_Session() {
	cfg := sandbox.DefaultConfig()
	cfg.Stateful = true
	s, err := sandbox.New(cfg)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	traj := s.Session() // one per trajectory
	defer traj.Close()
	for _, code := range []string{
		"func sq(n int) int { return n * n }",
		"fmt.Println(sq(12))",
	} {
		fmt.Println(traj.Call(context.Background(), code).Output)
	}
	// Output:
	// (no output: print the result with fmt.Println)
	// 144
}
