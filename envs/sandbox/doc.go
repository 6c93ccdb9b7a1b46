// Package sandbox is the code tool: it runs a Go snippet or program written
// by the policy in a yaegi interpreter and returns what it printed.
//
// Each call gets a fresh interpreter that can import only pure standard
// library packages (fmt, math, math/big, math/bits, strings, strconv, sort,
// unicode, errors, bytes); any other import, and the go statement, is
// refused before anything runs. Input is either a whole program (starting
// with a package clause, main is run) or a snippet of declarations and
// statements, run in order, with fmt, math, strings and strconv already
// imported:
//
//	fmt.Println(4821 * 37)
//
// Output is what the code printed with fmt.Print, fmt.Printf, fmt.Println or
// the print builtins; nothing reaches the host's standard streams, and
// fmt.Scan reads nothing.
//
// Limits. A call is stopped at its deadline (Config.Timeout): interpreted
// loops notice the stop promptly and end, but a single long call into a
// compiled library function (a huge big.Int power, say) runs to its end in
// the background after Call has returned StatusTimeout. Output is capped at
// Config.MaxOutput bytes, and the rest is discarded as it is written, so a
// print loop cannot exhaust memory.
//
// Not yet contained: the interpreter runs in the host process, so a memory
// bomb (a huge make or strings.Repeat) can exhaust the host's memory, and
// unbounded recursion overflows the host goroutine's stack, which Go cannot
// recover from and which ends the process. Running calls in separate worker
// processes with resource limits closes both holes without changing this
// package's API.
package sandbox
