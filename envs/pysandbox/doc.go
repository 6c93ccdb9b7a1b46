// Package pysandbox is the Python code tool: it runs a program written by
// the policy in a jailed python3 and returns what it printed. It is the
// peer of envs/sandbox (Go code in yaegi) for policies that write Python,
// as the paper's and every Qwen2.5-Instruct checkpoint do, and shares its
// limits (sandbox.Config), its outcome record (sandbox.Outcome) and its
// outcomes: ok (ran and printed), empty (printed nothing; the policy is
// told to call print), error (the last line of the traceback, such as
// "ZeroDivisionError: division by zero", or the limit hit: "memory limit
// exceeded", "output limit exceeded") and timeout.
//
// # Libraries
//
// Code may import the standard library and, where installed, numpy,
// sympy and mpmath, which every worker imports before its first call;
// importing anything else fails with "module X is not available in the
// sandbox; available: ...". Sandbox.Libraries reports the interpreter's
// and the libraries' versions.
//
// # Containment
//
// A symbol whitelist cannot contain Python, so the process is the
// boundary. Each worker is a jail that bubblewrap builds:
//
//   - new user, PID, network, IPC, UTS and cgroup namespaces: no network
//     (not even loopback), no other process visible, no capabilities, an
//     empty environment; run as user nobody when the parent is root;
//   - a read-only root holding only /usr, its links (/bin, /lib, ...), the
//     dynamic linker's cache and /etc/alternatives, a private /proc, a
//     read-only /dev, and a private 32 MiB tmpfs at /tmp that is emptied
//     after every call;
//   - a seccomp filter (seccomp_linux.go) that denies sockets of every
//     family, ptrace, mounts, namespaces, keyrings, BPF, io_uring, kexec,
//     modules and the like, and the x32 ABI; and a second one, which each
//     runner installs before it reads code, that denies new processes,
//     exec, and signals or limits aimed at other processes (SIGIO too:
//     no runner may name another process a descriptor's owner);
//   - limits: the address space (Limits.Memory beyond what the interpreter
//     holds with its libraries loaded), no core files, files of at most
//     32 MiB, few descriptors, RLIMIT_NPROC (which bounds threads), and
//     per call the CPU time (timeout plus a second); hard limits equal
//     soft ones, so code cannot raise them. No process of the jail may
//     read another's memory or descriptors (none is dumpable).
//
// In the jail the driver (driver.py and runner.py, embedded) runs as
// process 1. It never runs model-written code itself: every call runs in
// a runner, a process forked from the driver with the libraries already
// imported, so no call sees what another left (globals, changed modules,
// files). The driver reads the runner's standard output and error,
// enforces the wall deadline and the output limit, and kills and reaps
// the runner; it keeps two spare runners forked ahead (a new one after
// each call, after the reply), each of which readies itself (streams,
// filter, a first run of the interpreter's compile and print paths)
// before a call's code arrives.
//
// # Plain and full workers
//
// A sandbox runs two kinds of workers, Limits.Workers of each: full ones,
// whose driver imports numpy, sympy and mpmath, and plain ones, whose
// driver imports only the standard library modules math code uses most
// (math, fractions, decimal, itertools, collections, statistics, re,
// ...). A stateless call whose code names none of the libraries runs in
// a plain worker, where forking a runner costs a fraction of what it
// costs in a full one; every other call (sessions with Limits.Stateful,
// code that names a library) runs in a full worker. A plain runner that
// meets an import of a library anyway (a name built at run time) stops
// before that import and the call runs again, from its start, in a full
// worker, within the time it had left; so a call prints what it would
// print in a full worker (bar what tells the two apart, such as
// sys.modules). With Runtime.Reuse there are full workers only.
//
// # Pure calls
//
// Most calls a policy makes are arithmetic: print(51952 // 764). Code that
// pure.py finds pure, read before it runs (arithmetic, loops, functions,
// comprehensions, a few stateless modules such as math, fractions,
// itertools and collections; no attribute writes, no names or attributes
// that start with an underscore, no frames, no classes, no global), can
// change nothing but its own globals. A plain worker therefore keeps the
// runner of a pure call and runs the next pure calls in it, each with
// fresh globals, for a fraction of a fork. Code that is not pure never
// runs in that runner: it refuses it, unrun, and the call runs in a fresh
// runner. The runner is dropped once its peak memory grew by 16 MiB or
// its processor time reached a minute, and whenever a call ends it (a
// timeout, a limit, a crash). A pure call prints what it would in a fresh
// runner, except what depends on where objects lie in memory (the repr
// of a function). Parent and
// driver talk in length-prefixed frames over two pipes of their own (the
// driver's descriptors 3 and 4), which no runner holds, so nothing a
// program prints can pass for a reply. A driver that stops answering is
// killed with its whole jail and replaced in the background.
//
// # Speed
//
// A call's cost is mostly the fork: its size (the page tables copied,
// then freed at the runner's exit), and the pages the driver or the
// runner writes after it, each copied on a fault. So plain workers fork
// a small interpreter; the driver forks without the interpreter's
// after-fork hooks, which have nothing to repair in a single-threaded
// driver but write hundreds of pages; builds once what every runner
// needs (runner.py's Kit) and runs the compile and exec paths once
// itself before it forks, so that no runner builds them again; and asks
// for its heap in 2 MiB pages, whose table entries a fork copies 512 at a
// time. BenchmarkVersus measures the pool (and the pool with full workers
// only) beside python3 -c and the Go sandbox's pool, two calls at a time;
// BenchmarkVersusSympy a program that imports sympy:
//
//	go test ./envs/pysandbox -run '^$' -bench Versus -benchtime 300x
//
// New fails, saying why, when the jail cannot be built (bubblewrap or
// python3 missing, user namespaces denied): install the bubblewrap and
// python3 packages (and python3-numpy, python3-sympy for the libraries).
//
// # Sessions
//
// With Limits.Stateful, the calls of one Session (one per trajectory)
// share a runner, so later calls see the globals of earlier ones. A
// worker keeps 16 session runners; the least recently used is dropped.
package pysandbox
