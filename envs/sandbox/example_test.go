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
	for _, code := range []string{
		"fmt.Println(4821 * 37)",
		"x := 4821 % 37",
		`import "os"`,
	} {
		r := s.Call(context.Background(), code)
		fmt.Printf("%s: %s\n", r.Status, r.Output)
	}
	// Output:
	// ok: 178377
	//
	// empty: (no output: print the result with fmt.Println)
	// error: error: import "os" is not allowed (allowed: bytes, errors, fmt, math, math/big, math/bits, sort, strconv, strings, unicode)
}
