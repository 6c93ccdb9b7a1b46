"""Runner side of a jailed Python worker (envs/pysandbox).

The jail runs this file and driver.py as one program, this file first
(pysandbox.go joins them): the names of frames (encode, read_frame,
write_frame) and the descriptor numbers come from driver.py.

A runner is a process the driver forks with the libraries already
imported. Before it reads code it takes its pipes as descriptors 0 to 4,
closes every other one, and installs the runner seccomp filter (no
processes, no exec, no signals to others). It then runs each code frame
it is sent (an 8-byte big-endian timeout in nanoseconds, a byte that is
1 when the driver found the code surely impure (pure.py), then the code)
and answers encode(kind, message, text, keep) on RUN_OUT.

Cost. After a fork every page is shared copy-on-write, and a runner pays
for each page it writes: a fault, a copy and a flush of the page tables,
tens of microseconds on a virtual machine, where they are most of a
call's cost. So the driver prepares what a runner needs (Kit), forks
without the interpreter's after-fork hooks (fork), and a runner runs as
little Python as it can before and around the code.
"""

import _random
import _signal
import ctypes
import io
import linecache
import math
import os
import resource
import sys
import traceback

SESSION_CPU = 600  # seconds of CPU time a runner may use in all


# Libraries.

EXTRAS = ("numpy", "sympy", "mpmath")
# The modules of the standard library a plain worker imports before its
# first call: those arithmetic and math code imports most.
PLAIN = ("bisect", "cmath", "collections", "decimal", "fractions", "functools", "heapq",
         "itertools", "json", "math", "operator", "random", "re", "statistics", "string")
LIBRARIES = "libraries"  # a plain runner's answer to code that imports one


class Guard:
    """Refuses imports of anything but the standard library and the
    extras. In the runners of a plain worker (the standard library only),
    the first import of an installed extra hands the call off (hand_off)."""

    def __init__(self, extras, deferred=()):
        self.allowed = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | set(extras)
        self.hint = ", ".join(["the standard library"] + list(extras))
        self.deferred = frozenset(deferred)
        self.in_runner = False  # set by Kit.enter

    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in self.deferred and self.in_runner:
            hand_off()
        if top in self.allowed:
            return None
        raise ModuleNotFoundError(
            "module %r is not available in the sandbox; available: %s" % (top, self.hint), name=name)


def hand_off():
    """Ends a plain runner's call with the answer LIBRARIES, before the
    import that needs them runs; the parent then runs the call again in a
    worker that has them loaded. Nothing the call did outlives it: a
    plain worker serves only stateless calls, whose runner ends with the
    call, and /tmp is emptied after it."""
    write_frame(RUN_OUT, encode(LIBRARIES, "", "", False))
    os._exit(0)


def preload(plain):
    """Imports the installed EXTRAS (PLAIN instead when plain, noting
    which extras are installed) and returns the library report and the
    import guard, installed."""
    report = ["python %d.%d.%d" % sys.version_info[:3]]
    if plain:
        import importlib.util
        for name in PLAIN:
            __import__(name)
        found = [name for name in EXTRAS if importlib.util.find_spec(name) is not None]
        report += found
    else:
        found = import_extras(report)
    guard = Guard(found, found if plain else ())
    sys.meta_path.insert(0, guard)
    return report, guard


def import_extras(report):
    """Imports the installed EXTRAS, adds "name version" of each to
    report and returns their names."""
    found = []
    for name in EXTRAS:
        try:
            mod = __import__(name)
        except ImportError:
            continue
        found.append(name)
        report.append("%s %s" % (name, getattr(mod, "__version__", "?")))
    if "sympy" in found:  # warm the printer and the solver's caches
        import sympy
        str(sympy.factor(sympy.Symbol("x") ** 2 - 1))
    return found


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Kit:
    """What every runner needs, built once by the driver so that a runner
    only uses it: the runner filter, whose tgkill instruction takes the
    runner's pid, the standard streams, and the CPU limit that bounds all
    the calls of one runner. A runner that built them itself would write
    to hundreds of pages it shares with the driver."""

    def __init__(self, prog, pid_insn, guard, plain):
        self.guard = guard
        self.modules = pure_modules() if plain else None  # plain workers keep runners for pure calls
        self.raw = ctypes.create_string_buffer(bytes(prog), len(prog))
        self.pid = ctypes.c_uint32.from_buffer(self.raw, 8 * pid_insn + 4)
        self.fprog = SockFprog(len(prog) // 8, ctypes.cast(self.raw, ctypes.c_void_p))
        self.fprog_ref = ctypes.byref(self.fprog)
        self.prctl = ctypes.CDLL(None, use_errno=True).prctl
        self.streams = (
            io.TextIOWrapper(io.FileIO(0, "r", closefd=False), "utf-8"),
            io.TextIOWrapper(io.FileIO(1, "w", closefd=False), "utf-8", "backslashreplace"),
            io.TextIOWrapper(io.FileIO(2, "w", closefd=False), "utf-8", "backslashreplace"),
        )
        self.random = getattr(sys.modules.get("random"), "_inst", None)
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        self.cpu_hard = SESSION_CPU if hard == resource.RLIM_INFINITY else min(SESSION_CPU, hard)

    def enter(self, fds):
        """Makes a freshly forked process a runner: fds (its requests,
        results, stdout and stderr pipes) become descriptors RUN_IN,
        RUN_OUT, 1 and 2 and every other descriptor is closed; SIGPIPE
        kills it again; the runner filter is installed, or the process
        exits with status 71 (no code ever runs unfiltered; the driver set
        no_new_privs, which the filter needs); the kit's streams become the
        standard ones; random is seeded afresh, as in a new interpreter."""
        dup2 = os.dup2
        dup2(fds[0], RUN_IN)
        dup2(fds[1], RUN_OUT)
        dup2(fds[2], 1)
        dup2(fds[3], 2)
        os.closerange(RUN_OUT + 1, MAX_FD)
        _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
        self.pid.value = os.getpid()
        if self.prctl(22, 2, self.fprog_ref, 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
            os._exit(71)
        sys.stdin, sys.stdout, sys.stderr = self.streams
        sys.argv = [""]
        if self.random is not None:
            _random.Random.seed(self.random)
        self.guard.in_runner = True


_libc_fork = ctypes.PyDLL(None, use_errno=True).fork
_libc_fork.restype, _libc_fork.argtypes = ctypes.c_int, ()


def fork():
    """Forks as os.fork does, but in a single-threaded driver without the
    interpreter's after-fork hooks: they reinitialise locks and threads a
    single thread never left inconsistent, and run Python callbacks
    (random's reseeding, threading's bookkeeping) that write to hundreds of
    shared pages. Kit.enter reseeds random itself."""
    if not single_threaded:
        return os.fork()
    pid = _libc_fork()
    if pid < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return pid


single_threaded = False  # set by prepare (driver.py) once the libraries are loaded


def runner_main(kit, fds, stateful):
    """The runner's life: enter, then serve_calls, until the driver closes
    RUN_IN or kills it. It never returns."""
    try:
        kit.enter(fds)
        serve_calls(kit, stateful)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(70)


def serve_calls(kit, stateful):
    """Runs the code frames from RUN_IN, each answered on RUN_OUT, in
    fresh globals unless stateful. It exits when RUN_IN closes. In a
    plain worker's stateless runner (kit.modules set) it answers, after
    each call, whether the call was pure (pure.py) and so left the runner
    fit for the next pure one; once it ran a pure call it refuses code
    that is not, answering IMPURE without running it."""
    execute("print(end='')", fresh_globals())  # copies the pages a call writes before one comes
    modules = None if stateful else kit.modules
    env, used = fresh_globals(), False
    ok = (encode("ok", "", "", False), encode("ok", "", "", True))
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    while True:
        body = read_frame(RUN_IN)
        if body is None:
            os._exit(0)
        code = body[9:].decode("utf-8", "surrogateescape")
        tree = parse(code) if modules is not None and not body[8] else None
        keep = tree is not None and pure(tree, modules)
        if used and not keep:
            write_frame(RUN_OUT, encode(IMPURE, "", "", False))
            continue
        limit_cpu(int.from_bytes(body[:8], "big") / 1e9, kit.cpu_hard)
        if not stateful:
            env = fresh_globals()
        kind, message, text = execute(code, env, tree if keep else None)
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
        if keep:
            keep = message != MEMORY and fit_to_keep(base)
            used = used or keep
        write_frame(RUN_OUT, ok[keep] if kind == "ok" else encode(kind, message, text, keep))


def fit_to_keep(base):
    """Reports whether a runner whose peak resident size was base
    kilobytes before its calls may serve more pure calls: its peak grew
    by less than KEEP_GROWTH and its processor time stays under
    KEEP_CPU seconds, well within its limit for all its calls."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_maxrss - base < KEEP_GROWTH and use.ru_utime + use.ru_stime < KEEP_CPU


KEEP_GROWTH = 16 << 10  # kilobytes
KEEP_CPU = 60  # seconds
IMPURE = "impure"  # a used runner's answer to code that is not pure
MEMORY = "memory limit exceeded"


def limit_cpu(timeout, hard):
    """Limits the CPU time of the coming call to its timeout and a second
    (the kernel then ends the runner with SIGXCPU). The hard limit, which
    cannot be raised again, bounds all the calls of one runner."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(used.ru_utime + used.ru_stime) + math.ceil(timeout) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (min(soft, hard), hard))


def fresh_globals():
    return {"__name__": "__main__", "__builtins__": __builtins__}


def execute(code, env, tree=None):
    """Runs code (compiled from tree, its parse, when given) in env and
    returns (kind, message, full error text)."""
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    try:
        compiled = compile(code if tree is None else tree, "<code>", "exec")
    except (SyntaxError, ValueError, MemoryError) as e:
        return failure(e, None)
    try:
        exec(compiled, env)
    except SystemExit as e:
        if e.code is None or e.code == 0:
            return "ok", "", ""
        return failure(e, e.__traceback__.tb_next)
    except BaseException as e:
        return failure(e, e.__traceback__.tb_next)
    return "ok", "", ""


def failure(e, tb):
    if isinstance(e, MemoryError):
        return "error", MEMORY, "MemoryError: " + MEMORY
    try:
        text = "".join(traceback.format_exception(type(e), e, tb))
        last = traceback.format_exception_only(type(e), e)[-1].strip()
    except BaseException:
        text = last = type(e).__name__
    return "error", last, text
