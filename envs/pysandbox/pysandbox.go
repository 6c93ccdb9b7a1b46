package pysandbox

import (
	"context"
	_ "embed"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/envs/sandbox"
	"github.com/artist-rl/artist/internal/workerpool"
)

// The program of a jail's process 1: runner.py (the runners' side),
// pure.py (which calls may share a runner) and driver.py, run as one
// file.
var (
	//go:embed runner.py
	runnerSource string
	//go:embed pure.py
	pureSource string
	//go:embed driver.py
	driverSource string
	program      = runnerSource + "\n" + pureSource + "\n" + driverSource
)

// Runtime names the programs a jail is made of.
type Runtime struct {
	// Interpreter is the Python interpreter, which must live under /usr
	// (the jail binds /usr read-only and nothing else of the host's
	// files). Default /usr/bin/python3.
	Interpreter string `yaml:"interpreter"`
	// Bwrap is the bubblewrap program that builds the jail, a path or a
	// name looked up on PATH. Default "bwrap".
	Bwrap string `yaml:"bwrap"`
	// Reuse runs the stateless calls of a worker one after another in one
	// runner, each with fresh globals, instead of a fresh runner per call:
	// calls cost about a tenth of a millisecond instead of a fork (several
	// milliseconds of page copying; see the package comment's Speed), but
	// what a call changes in an imported module (math.pi = 3, numpy's
	// print options, sys.setrecursionlimit) stays for the later calls on
	// that worker.
	// Threads a call leaves running also stay. The runner is replaced
	// when it ends (a timeout, a limit, a crash). Without Reuse, pure
	// calls (pure.py) already share a runner, safely. Default false.
	Reuse bool `yaml:"reuse"`
}

// Config is the limits and pool of a Python sandbox and its runtime.
type Config struct {
	// Limits are those of the Go sandbox, with the same meaning: the wall
	// timeout, max_output, memory (bytes a call may allocate beyond its
	// interpreter with the libraries loaded), workers, stateful and cpus.
	Limits sandbox.Config
	// Runtime names the interpreter and bubblewrap.
	Runtime Runtime

	// fullOnly runs every call in a full worker (plain.go), as the
	// benchmarks and tests that compare the two do.
	fullOnly bool
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Limits: sandbox.DefaultConfig(), Runtime: DefaultRuntime()}
}

// DefaultRuntime returns the documented default runtime.
func DefaultRuntime() Runtime { return Runtime{Interpreter: "/usr/bin/python3", Bwrap: "bwrap"} }

// Validate reports the first invalid field, naming its key and the fix.
func (c Config) Validate() error {
	if err := c.Limits.Validate(); err != nil {
		return err
	}
	if i := c.Runtime.Interpreter; i != "" && !strings.HasPrefix(i, "/usr/") {
		return fmt.Errorf("pysandbox: interpreter %q is not under /usr, the only host folder the jail holds: use the system's python3, such as /usr/bin/python3", i)
	}
	return nil
}

// EmptyOutput is the Output of a call that ran and printed nothing.
const EmptyOutput = "(no output: print the result with print())"

// maxMessage bounds the length of an error line shown to the policy.
const maxMessage = 200

// maxSessions bounds the session runners one worker keeps; the least
// recently used is dropped beyond it.
const maxSessions = 16

// Result shapes o into what the policy reads, as sandbox.Outcome.Result
// does, with a reminder to call print for an empty call.
func Result(o sandbox.Outcome) envs.Result {
	if o.Status == envs.StatusEmpty {
		return envs.Result{Status: o.Status, Output: EmptyOutput}
	}
	return o.Result()
}

// Sandbox runs Python code in a pool of jailed workers. It implements
// envs.Tool and envs.SessionTool and is safe for concurrent use. Close
// stops the workers.
type Sandbox struct {
	cfg       Config
	pool      *workerpool.Pool // the full workers
	plain     *workerpool.Pool // the plain workers (plain.go); nil with Reuse
	libraries []string
	libNames  []string // the libraries' import names
}

var (
	_ envs.Tool        = (*Sandbox)(nil)
	_ envs.SessionTool = (*Sandbox)(nil)
)

// New returns a Sandbox with the limits of cfg, with its first worker
// started: an error says why when cfg is invalid or when the jail cannot
// be built (bubblewrap or the interpreter missing, user namespaces
// denied).
func New(cfg Config) (*Sandbox, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Runtime.Interpreter == "" {
		cfg.Runtime.Interpreter = DefaultRuntime().Interpreter
	}
	if cfg.Runtime.Bwrap == "" {
		cfg.Runtime.Bwrap = DefaultRuntime().Bwrap
	}
	n := cfg.Limits.Workers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	memory := cfg.Limits.Memory
	if memory == 0 {
		memory = sandbox.DefaultConfig().Memory
	}
	j, err := newJail(cfg.Runtime)
	if err != nil {
		return nil, err
	}
	h := hello{maxSessions: maxSessions, reuse: cfg.Runtime.Reuse}
	h.MaxOutput, h.Memory, h.CPUs = cfg.Limits.MaxOutput, memory, cfg.Limits.CPUs
	h.filter, h.pidInsn = j.runnerFilter, j.pidInsn
	pool, libs, err := startPool(j, h, n)
	if err != nil {
		return nil, fmt.Errorf("%w (the jail needs bubblewrap, %s and unprivileged user namespaces)", err, cfg.Runtime.Interpreter)
	}
	s := &Sandbox{cfg: cfg, pool: pool, libraries: libs, libNames: libraryNames(libs)}
	runtime.AddCleanup(s, (*workerpool.Pool).Close, s.pool)
	if !cfg.Runtime.Reuse && !cfg.fullOnly {
		h.plain = true
		if s.plain, _, err = startPool(j, h, n); err != nil {
			s.pool.Close()
			return nil, fmt.Errorf("%w (a worker with the standard library only)", err)
		}
		runtime.AddCleanup(s, (*workerpool.Pool).Close, s.plain)
	}
	return s, nil
}

// Libraries returns what code can import, as the first worker reported
// it: the interpreter and its version first ("python 3.11.2"), then each
// preloaded library ("numpy 1.24.2", "sympy 1.11.1", ...). The rest of the
// standard library is also available; nothing else is.
func (s *Sandbox) Libraries() []string { return slices.Clone(s.libraries) }

// Call runs input in a fresh interpreter and reports what it printed, as
// Result(s.Run(ctx, input)). It never panics.
func (s *Sandbox) Call(ctx context.Context, input string) envs.Result {
	return Result(s.Run(ctx, input))
}

// Run runs input as a Python program in a fresh interpreter (a runner
// forked from a warm one, so no state of another call is visible), or,
// when input is pure (pure.py: it can change nothing but its own
// globals), in the runner earlier pure calls used, with fresh globals.
// The
// program gets Limits.Timeout from the moment a worker is free, or less
// when ctx's deadline comes sooner. Outcomes: StatusOK with what it
// printed on standard output; StatusEmpty when it printed nothing;
// StatusError with the last line of the traceback ("ZeroDivisionError:
// division by zero") or the limit hit ("memory limit exceeded", "output
// limit exceeded") in Message and the traceback and standard error in
// Error; StatusTimeout when the timeout passed. When ctx is canceled
// first, the outcome is StatusError "call canceled".
func (s *Sandbox) Run(ctx context.Context, input string) sandbox.Outcome {
	return s.run(ctx, nil, 0, input)
}

// Close stops all workers, interrupting running calls (they answer
// "sandbox closed"), and returns once every process of every jail has
// been killed and the jails reaped. It always returns nil.
func (s *Sandbox) Close() error {
	s.pool.Close()
	if s.plain != nil {
		s.plain.Close()
	}
	return nil
}

// run runs input on the slot *bound (any free slot when bound or *bound is
// nil, which is then stored in *bound) in the runner of session (0: a
// fresh one), for the time left once a worker is free.
func (s *Sandbox) run(ctx context.Context, bound **workerpool.Slot, session uint64, input string) sandbox.Outcome {
	start := time.Now()
	budget := s.budget(ctx)
	req := request{Session: session, Code: input}
	rep, done, left := s.runPlain(ctx, req)
	if !done {
		rep = s.pool.Run(ctx, bound, left, req)
	}
	if rep.Status == envs.StatusTimeout && strings.HasPrefix(rep.Message, "timeout after") {
		t := workerpool.Timeout(budget) // the time the caller allowed
		rep.Message, rep.Err = t.Message, t.Err
	}
	return sandbox.Outcome{
		Status:    rep.Status,
		Stdout:    rep.Stdout,
		Truncated: rep.Truncated,
		Message:   truncate(rep.Message, maxMessage),
		Error:     rep.Err,
		Wall:      time.Since(start),
	}
}

// budget is the time a call may run from now.
func (s *Sandbox) budget(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(min(s.cfg.Limits.Timeout, time.Until(d)), 0)
	}
	return s.cfg.Limits.Timeout
}

// truncate cuts s to at most n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
