"""Driver of one jailed Python worker (envs/pysandbox).

The parent writes frames to descriptor 3 and reads frames from descriptor
4; a frame is a 4-byte big-endian length and a body of uvarints and
length-prefixed byte strings (see proto.go). The driver never runs
model-written code itself: each call runs in a runner, a process forked
from the driver with the libraries already imported, which installs a
seccomp filter of its own (no processes, no exec, no signals to others)
before it reads code. A stateless call gets a fresh runner that is killed
after the call; a session keeps its runner, and so its globals, between
calls. The driver reads the runner's standard streams, enforces the wall
deadline and the output limit, and kills and reaps the runner.

The jail runs runner.py and this file as one program, runner.py first:
the runner's side (Kit, fork, runner_main) comes from there.
"""

import ctypes
import gc
import os
import resource
import select
import shutil
import signal
import struct
import sys
import time

REQUESTS, REPLIES = 3, 4  # the driver's pipes to the parent
RUN_IN, RUN_OUT = 3, 4  # a runner's pipes to the driver
TMP = "/tmp"
MAX_FD = 1 << 20  # above any descriptor number (the kernel's nr_open default)


# Frames.

def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def encode(*fields):
    """Encodes ints as uvarints, bools as 0/1, str and bytes with a length."""
    out = bytearray()
    for f in fields:
        if isinstance(f, bool):
            out += uvarint(int(f))
        elif isinstance(f, int):
            out += uvarint(f)
        else:
            b = f.encode("utf-8", "surrogateescape") if isinstance(f, str) else f
            out += uvarint(len(b)) + b
    return bytes(out)


class Decoder:
    def __init__(self, body):
        self.b, self.i = body, 0

    def uint(self):
        n = shift = 0
        while True:
            c = self.b[self.i]
            self.i += 1
            n |= (c & 0x7F) << shift
            if c < 0x80:
                return n
            shift += 7

    def bytes(self):
        n = self.uint()
        self.i += n
        return self.b[self.i - n:self.i]

    def str(self):
        return self.bytes().decode("utf-8", "surrogateescape")


def read_exact(fd, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def read_frame(fd):
    head = read_exact(fd, 4)
    if head is None:
        return None
    return read_exact(fd, struct.unpack(">I", head)[0])


def write_frame(fd, body):
    data = struct.pack(">I", len(body)) + body
    while data:
        data = data[os.write(fd, data):]


def huge_pages():
    """Asks the kernel to back the driver's large private anonymous
    mappings (the interpreter's heap, with the libraries' objects) with
    2 MiB pages, at once (MADV_COLLAPSE, Linux 6.1) or later
    (MADV_HUGEPAGE): a fork then copies one page table entry per 2 MiB the
    driver has not written since instead of 512, and a runner's exit frees
    them as fast. Best effort: errors are ignored."""
    madvise = libc.madvise
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    huge = 2 << 20
    try:
        with open("/proc/self/maps") as f:
            maps = [line.split() for line in f]
    except OSError:
        return
    for fields in maps:
        if fields[1] != "rw-p" or len(fields) > 5 and fields[5] != "[heap]":
            continue  # only the heap and anonymous mappings
        start, end = (int(x, 16) for x in fields[0].split("-"))
        start, end = -(-start // huge) * huge, end // huge * huge
        if end > start:
            madvise(start, end - start, 14)  # MADV_HUGEPAGE
            madvise(start, end - start, 25)  # MADV_COLLAPSE


# Limits.

def limit(memory, max_sessions):
    """Limits the driver, and so every runner it forks."""
    mapped = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    for res, value in (
        (resource.RLIMIT_AS, mapped + memory),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_FSIZE, 32 << 20),
        (resource.RLIMIT_NOFILE, 32 + 4 * max_sessions),
        (resource.RLIMIT_NPROC, 12 + max_sessions),
    ):
        resource.setrlimit(res, (value, value))
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no process may read another's memory or descriptors
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS, which a runner's filter needs
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")


libc = ctypes.CDLL(None, use_errno=True)


# Runners, as the driver sees them (runner.py holds their side).

class Runner:
    """A forked runner as the driver sees it."""

    def __init__(self, kit, stateful):
        """Forks a runner (runner_main) that uses kit and keeps its globals
        between calls when stateful."""
        pipes = [os.pipe() for _ in range(4)]  # requests, results, stdout, stderr
        try:
            self.pid = fork()
        except OSError:
            for fd in sum(pipes, ()):
                os.close(fd)
            raise
        if self.pid == 0:
            runner_main(kit, (pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][1]), stateful)
        os.close(pipes[0][0])
        for _, w in pipes[1:]:
            os.close(w)
        self.req, self.res, self.out, self.err = pipes[0][1], pipes[1][0], pipes[2][0], pipes[3][0]
        for fd in (self.out, self.err):
            os.set_blocking(fd, False)
        self.status = None  # wait status once reaped

    def kill(self, wait=True):
        """Kills the runner and closes its pipes; with wait, reaps it too
        (else reap_done does, later)."""
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if wait:
                self.reap()
            else:
                dying.append(self)
        for fd in (self.req, self.res, self.out, self.err):
            try:
                os.close(fd)
            except OSError:
                pass

    def reap(self):
        if self.status is None:
            self.status = os.waitpid(self.pid, 0)[1]
        return self.status

    def send(self, code, timeout, screened=False):
        """Sends code to run (screened: surely impure, so the runner need
        not check it); returns False when the runner is gone."""
        try:
            head = int(timeout * 1e9).to_bytes(8, "big") + (b"\1" if screened else b"\0")
            body = head + code.encode("utf-8", "surrogateescape")
            write_frame(self.req, body)
            return True
        except OSError:
            return False

    def wait(self, sent, timeout, max_output):
        """Waits for the code sent; returns (status, stdout, truncated,
        message, err, alive, keep): keep, that a plain worker may keep the
        runner for the next pure call."""
        out, err = Capture(max_output), Capture(4096)
        if not sent:
            return self.died(out, err)
        result = bytearray()
        deadline = time.monotonic() + timeout
        streams = {self.out: out, self.err: err}
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                msg = timeout_message(timeout)
                return "timeout", out.text(), out.truncated, msg, msg, False, False
            ready, _, _ = select.select([self.res] + list(streams), [], [], left)
            for fd in ready:
                if fd in streams:
                    if not streams[fd].read(fd):
                        del streams[fd]
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return self.died(out, err)
                result += chunk
            if out.stopped or err.stopped:
                self.kill()
                msg = "output limit exceeded: printed more than %d bytes" % max(out.stop, err.stop)
                return "error", out.text(), out.truncated, msg, msg, False, False
            if len(result) >= 4 and len(result) >= 4 + struct.unpack(">I", result[:4])[0]:
                break
        for fd, cap in streams.items():
            cap.read(fd)
        d = Decoder(bytes(result[4:]))
        kind, message, text, keep = d.str(), d.str(), d.str(), bool(d.uint())
        if kind in (LIBRARIES, IMPURE):  # the call is to run elsewhere
            return kind, b"", False, "", "", kind == IMPURE, False
        if kind == "error":
            if err.text():
                text = text + "\n" + err.text().decode("utf-8", "replace")
            return "error", out.text(), out.truncated, message, text, True, keep
        status = "ok" if out.text() or out.truncated else "empty"
        return status, out.text(), out.truncated, "", "", True, keep

    def died(self, out, err):
        """Explains a runner that ended without answering."""
        self.kill()
        tail = err.text().decode("utf-8", "replace")
        st = self.status
        if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGXCPU:
            return "timeout", out.text(), out.truncated, "cpu time limit exceeded", "cpu time limit exceeded", False, False
        if "MemoryError" in tail or "Cannot allocate memory" in tail:
            msg = "memory limit exceeded"
        elif os.WIFSIGNALED(st):
            msg = "runner killed by signal %s" % signal.Signals(os.WTERMSIG(st)).name
        else:
            msg = "runner exited with status %d" % os.WEXITSTATUS(st)
        return "error", out.text(), out.truncated, msg, (msg + "\n" + tail).strip(), False, False


def timeout_message(timeout):
    return "timeout after %s" % format_seconds(timeout)


def format_seconds(t):
    """Formats like Go's time.Duration rounded to milliseconds."""
    ms = round(t * 1000)
    if ms % 1000 == 0:
        return "%ds" % (ms // 1000)
    if ms < 1000:
        return "%dms" % ms
    return ("%.3f" % (ms / 1000)).rstrip("0") + "s"


class Capture:
    """Keeps the first limit bytes read; past stop bytes it is stopped."""

    def __init__(self, limit):
        self.limit, self.stop = limit, max(16 * limit, 1 << 20)
        self.buf, self.total = bytearray(), 0

    def read(self, fd):
        """Reads what is there; returns False at end of stream."""
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            self.total += len(chunk)
            room = self.limit - len(self.buf)
            if room > 0:
                self.buf += chunk[:room]
            if self.stopped:
                return True

    @property
    def stopped(self):
        return self.total > self.stop

    @property
    def truncated(self):
        return self.total > self.limit

    def text(self):
        return bytes(self.buf)


# Serving.

class Driver:
    def __init__(self, hello):
        d = Decoder(hello)
        self.max_output, self.memory = d.uint(), d.uint()
        self.cpus = [d.uint() for _ in range(d.uint())]
        self.prog, self.pid_insn, self.max_sessions = d.bytes(), d.uint(), d.uint()
        self.reuse = bool(d.uint())  # stateless calls share a runner, each with fresh globals
        self.plain = bool(d.uint())  # the standard library only; imports of the libraries hand off
        self.sessions = {}  # id -> Runner, least recently used first
        self.spares = []  # stateless runners forked ahead, oldest first
        self.kept = None  # a plain worker's runner that served pure calls (pure.py)
        self.kit = None  # set by prepare once the driver is limited

    def runner(self, session, screened):
        if not session and self.reuse:
            r = self.sessions.get(0)
            if r is None:
                r = self.take_spare()
                self.sessions[0] = r  # kept, as a session's runner is
            return r
        if not session:
            if self.kept and not screened:
                return self.kept
            return self.take_spare()
        r = self.sessions.pop(session, None)
        if r is None:
            if len(self.sessions) >= self.max_sessions:
                oldest = next(iter(self.sessions))
                self.sessions.pop(oldest).kill()
            r = Runner(self.kit, True)
        self.sessions[session] = r
        return r

    def handle(self, body):
        """Runs one request; returns the reply and the runner to end after it."""
        d = Decoder(body)
        seq, session = d.uint(), d.uint()
        for _ in range(d.uint()):
            r = self.sessions.pop(d.uint(), None)
            if r:
                r.kill()
        code, timeout = d.str(), d.uint() / 1e9
        try:
            screened = self.plain and not session and surely_impure(code)
            r = self.runner(session, screened)
            res = r.wait(r.send(code, timeout, screened), timeout, self.max_output)
            if res[0] == IMPURE:  # the kept runner refused it, unrun: run it in a fresh one
                r = self.take_spare()
                res = r.wait(r.send(code, timeout, True), timeout, self.max_output)
        except OSError as e:
            msg = "cannot start a runner: %s" % e
            return encode(seq, "error", b"", False, msg, msg, True), None
        status, out, truncated, message, text, alive, keep = res
        rep = encode(seq, status, out, truncated, message, text, False)
        if alive and (session or self.reuse):
            return rep, None
        if alive and keep:  # a pure call left its runner as it found it
            self.kept = r
            return rep, None
        if r is self.kept:
            self.kept = None
        self.sessions.pop(session, None)
        return rep, r

    def serve(self):
        while True:
            body = read_frame(REQUESTS)
            if body is None:
                return
            reap_done()
            rep, done = self.handle(body)
            write_frame(REPLIES, rep)
            if done:  # off the caller's time, as are the cleaning and the next fork
                done.kill(wait=False)
            wipe_tmp()
            self.fork_spares()

    def take_spare(self):
        """Returns the oldest spare runner, or a new one."""
        return self.spares.pop(0) if self.spares else Runner(self.kit, False)

    def fork_spares(self):
        """Forks spare runners up to SPARES (one with reuse, for when its
        runner ends), so that a call finds one that readied itself while
        earlier calls ran."""
        while len(self.spares) < (1 if self.reuse else SPARES):
            try:
                self.spares.append(Runner(self.kit, False))
            except OSError:
                return  # the next stateless call forks its own, and reports why it cannot


SPARES = 2  # stateless runners a driver keeps forked ahead
dying = []  # killed runners not yet reaped


def reap_done():
    """Reaps the killed runners whose exit has finished."""
    for r in list(dying):
        pid, st = os.waitpid(r.pid, os.WNOHANG)
        if pid:
            r.status = st
            dying.remove(r)


def wipe_tmp():
    """Removes what the last call left in the scratch folder."""
    try:
        for e in os.scandir(TMP):
            if e.is_dir(follow_symlinks=False):
                shutil.rmtree(e.path, ignore_errors=True)
            else:
                os.unlink(e.path)
    except OSError:
        pass


def prepare(drv):
    """Loads the libraries, limits the driver, builds the runners' kit and
    forks the first spare; returns the library report."""
    global single_threaded
    if drv.cpus:
        os.sched_setaffinity(0, drv.cpus)
    report, guard = preload(drv.plain)
    huge_pages()
    limit(drv.memory, drv.max_sessions)
    drv.kit = Kit(drv.prog, drv.pid_insn, guard, drv.plain)
    single_threaded = len(os.listdir("/proc/self/task")) == 1
    execute("x = 0", fresh_globals())  # builds what compile and exec make on first use, once for all runners
    gc.collect()
    gc.freeze()  # a runner's collections then leave the driver's objects, and their pages, alone
    drv.fork_spares()
    return report


def main():
    os.closerange(REPLIES + 1, MAX_FD)  # whatever the parent's parents leaked
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # pid 1 ignores signals it does not handle
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    hello = read_frame(REQUESTS)
    if hello is None:
        return 3
    drv = Driver(hello)
    try:
        report = prepare(drv)
    except Exception as e:
        write_frame(REPLIES, encode("%s: %s" % (type(e).__name__, e), 0))
        return 3
    write_frame(REPLIES, encode("", len(report), *report))
    drv.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
