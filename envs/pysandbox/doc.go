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
// the runner; a spare runner is forked after each call, after the reply,
// and readies itself (streams, filter, a first run of the interpreter's
// compile and print paths) before the next call's code arrives. Parent and
// driver talk in length-prefixed frames over two pipes of their own (the
// driver's descriptors 3 and 4), which no runner holds, so nothing a
// program prints can pass for a reply. A driver that stops answering is
// killed with its whole jail and replaced in the background.
//
// # Speed
//
// A call's cost is mostly the fork: after it every page is shared
// copy-on-write, and each page the driver or the runner writes is copied
// on a fault, tens of microseconds apiece on a virtual machine. So the
// driver forks without the interpreter's after-fork hooks, which have
// nothing to repair in a single-threaded driver but write hundreds of
// pages; builds once what every runner needs (runner.py's Kit); and asks
// for its heap in 2 MiB pages, whose table entries a fork copies 512 at a
// time. BenchmarkVersus measures the pool beside python3 -c and the Go
// sandbox's pool, two calls at a time:
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
