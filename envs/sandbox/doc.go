// Package sandbox is the code tool: it runs a Go snippet or program written
// by the policy in a yaegi interpreter and returns what it printed.
//
// # Programs
//
// Input is either a whole program (starting with a package clause; main is
// run) or a snippet of declarations and statements, run in order, with fmt,
// math, strconv and strings already imported:
//
//	fmt.Println(4821 * 37)
//
// Output is what the code printed with fmt.Print, fmt.Printf, fmt.Println
// or the print builtins; fmt.Scan reads nothing. Outcomes follow the paper:
// ok (ran and printed), empty (ran and printed nothing; the policy is told
// to print its result), error (did not compile, used a denied package,
// panicked or hit a limit; the message says which) and timeout.
//
// Code may import only pure packages: bytes, container/heap, container/list,
// container/ring, errors, fmt, math, math/big, math/bits, math/cmplx,
// regexp, sort, strconv, strings, unicode and unicode/utf8. There is no
// file, network, process, environment, clock, runtime, reflect, unsafe or
// plugin access, and the go statement is refused. (slices and maps are left
// out: the interpreter implements them only in part.)
//
// # Containment
//
// Programs run in worker processes: the running executable started again
// in a worker mode that this package's init recognises by an environment
// variable, so any binary that links the package (the artist command, a
// test binary) serves as its own worker. Three layers contain a program:
//
//   - The interpreter is given only the whitelisted packages' symbols, and
//     imports are checked before anything runs; a denied package cannot
//     even be named.
//   - A worker limits itself when it starts: address space (RLIMIT_AS, at
//     Config.Memory beyond its start size), a garbage-collection target, a
//     64 MiB stack limit, no file writing (RLIMIT_FSIZE 0), 16 open files,
//     and before each program a CPU-time limit. A memory bomb or an endless
//     recursion crashes only the worker, and the call reports "memory limit
//     exceeded" or "stack overflow". A worker gets an empty environment
//     apart from its own settings, runs in its own process group, and dies
//     with its parent (Linux).
//   - The parent enforces the deadline: a worker stops interpreted code at
//     Config.Timeout itself, and one that has not answered a quarter second
//     later (a long call into compiled code such as a huge big.Int power)
//     is killed with its process group and reaped. Output is capped at
//     Config.MaxOutput bytes and marked truncated; a program that prints
//     far more is stopped ("output limit exceeded").
//
// Parent and worker talk in length-prefixed frames over two pipes of their
// own (the worker's descriptors 3 and 4), never over its standard streams,
// so nothing a program prints can pass for a reply.
//
// # Pool
//
// A Sandbox keeps Config.Workers warm workers (one per CPU by default),
// started with the first calls that need them. Each worker runs one program
// at a time, each in a fresh interpreter, so a call costs well under a
// millisecond of overhead rather than a process start; a worker that died
// or was killed is replaced in the background. Close stops the workers.
//
// # Sessions
//
// With Config.Stateful, the calls of one Session (one per trajectory) share
// an interpreter on one worker, so later calls see the definitions and
// imports of earlier ones, like cells of a notebook. Without it a Session
// behaves like the Sandbox itself, which is the paper's setting.
package sandbox
