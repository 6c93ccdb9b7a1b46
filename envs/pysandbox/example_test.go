package pysandbox_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/artist-rl/artist/envs/pysandbox"
)

func Example() {
	s, err := pysandbox.New(pysandbox.DefaultConfig())
	if err != nil {
		panic(err) // no bubblewrap, no python3, or user namespaces denied
	}
	defer s.Close()
	for _, code := range []string{
		"print(4821 * 37)",
		"x = 4821 % 37",
		"print(1 / 0)",
		"import requests",
		"import sympy\nprint(sympy.factorint(4821))",
	} {
		r := s.Call(context.Background(), code)
		fmt.Printf("%s: %s\n", r.Status, strings.TrimSpace(r.Output))
	}
	// Output:
	// ok: 178377
	// empty: (no output: print the result with print())
	// error: error: ZeroDivisionError: division by zero
	// error: error: ModuleNotFoundError: module 'requests' is not available in the sandbox; available: the standard library, numpy, sympy, mpmath
	// ok: {3: 1, 1607: 1}
}

func ExampleSandbox_Session() {
	cfg := pysandbox.DefaultConfig()
	cfg.Limits.Stateful = true
	s, err := pysandbox.New(cfg)
	if err != nil {
		panic(err)
	}
	defer s.Close()
	traj := s.Session() // one per trajectory
	defer traj.Close()
	for _, code := range []string{
		"def sq(n):\n    return n * n",
		"print(sq(12))",
	} {
		fmt.Println(traj.Call(context.Background(), code).Output)
	}
	// Output:
	// (no output: print the result with print())
	// 144
}
