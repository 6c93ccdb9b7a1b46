package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/artist-rl/artist/envs"
)

// FuzzCall feeds arbitrary source text to the sandbox: every call must be
// answered, in time, with a well-formed result, and the caller must go on.
func FuzzCall(f *testing.F) {
	for _, tc := range hostileSeeds() {
		f.Add(tc)
	}
	const timeout = 300 * time.Millisecond
	s, err := New(Config{Timeout: timeout, MaxOutput: 256, Workers: 2})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, input string) {
		start := time.Now()
		got := s.Call(context.Background(), input)
		if elapsed := time.Since(start); elapsed > timeout+time.Second {
			t.Errorf("answered after %v", elapsed)
		}
		switch got.Status {
		case envs.StatusOK:
			if got.Error != "" || len(got.Output) > 256+len(TruncatedMarker) {
				t.Errorf("ok result %+v", got)
			}
		case envs.StatusEmpty:
			if got.Output != EmptyOutput {
				t.Errorf("empty result %+v", got)
			}
		case envs.StatusError, envs.StatusTimeout:
			if !strings.HasPrefix(got.Output, "error: ") || got.Error == "" {
				t.Errorf("failed result %+v", got)
			}
		default:
			t.Errorf("result with unknown status %+v", got)
		}
	})
}

// hostileSeeds are the seed corpus of FuzzCall: ordinary programs, broken
// ones and the hostile ones, which the fuzzer mutates.
func hostileSeeds() []string {
	seeds := []string{
		"fmt.Println(4821 * 37)", factorial30, sieve, heapProgram, "x := \nfmt.Println(", "}}}{{(",
		"package main\nfunc main() {", "import (", "\"unterminated", "func f() { f() }\nf()", "var x [1<<62]int",
		"for i := range 3 {}", "type T[P any] struct{ p P }\nfmt.Println(T[int]{1})", "defer fmt.Println(1)\npanic(2)",
	}
	for _, h := range hostile {
		seeds = append(seeds, h.input)
	}
	return seeds
}
