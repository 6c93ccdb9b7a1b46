package sandbox

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/workerpool"
)

// Config sets the limits of one call and the size of the worker pool. The
// zero value is not valid; start from DefaultConfig.
type Config struct {
	// Timeout is the wall-clock limit of one call, compile and run together.
	// Default 2s.
	Timeout time.Duration `yaml:"timeout"`
	// MaxOutput is the most bytes of printed output a result carries; the
	// rest is dropped and the output ends with TruncatedMarker. A program
	// that prints more than max(16 x MaxOutput, 1 MiB) is stopped with an
	// output-limit error. Default 4096.
	MaxOutput int `yaml:"max_output"`
	// Memory is how many bytes a program may allocate beyond what its
	// worker process holds when it starts; past it the program ends with
	// "memory limit exceeded". On Linux it is enforced as an address-space
	// limit (RLIMIT_AS), which with the default comes to about 2 GiB per
	// worker. Default 536870912 (512 MiB), which 0 also means; otherwise
	// at least 67108864 (64 MiB).
	Memory int64 `yaml:"memory"`
	// Workers is the number of worker processes, each running one program
	// at a time; calls beyond it wait, and the wait counts against the
	// caller's deadline. 0 means one per CPU (GOMAXPROCS). Default 0.
	Workers int `yaml:"workers"`
	// Stateful makes the calls of one Session share an interpreter, so
	// later calls see the definitions of earlier ones. Default false: every
	// call starts from a fresh interpreter, as in the paper.
	Stateful bool `yaml:"stateful"`
	// CPUs are the CPUs (numbered as the kernel numbers them) that the
	// worker processes run on, e.g. [0] to keep model-written code off the
	// cores of a trainer's update while rollouts overlap it. Empty (the
	// default): the CPUs the process that starts them may use. Linux only.
	CPUs []int `yaml:"cpus"`
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{Timeout: 2 * time.Second, MaxOutput: 4096, Memory: defaultMemory}
}

const (
	defaultMemory = 512 << 20
	minMemory     = 64 << 20 // the least a worker can run in
)

// Validate reports the first invalid field, naming its key and the fix.
func (c Config) Validate() error {
	switch {
	case c.Timeout <= 0:
		return fmt.Errorf("sandbox: timeout must be positive, got %v; set it to a duration such as 2s", c.Timeout)
	case c.MaxOutput < 1:
		return fmt.Errorf("sandbox: max_output must be at least 1 byte, got %d; the default is 4096", c.MaxOutput)
	case c.Memory != 0 && c.Memory < minMemory:
		return fmt.Errorf("sandbox: memory must be at least %d bytes (64 MiB), got %d; the default is 536870912 (512 MiB)", minMemory, c.Memory)
	case c.Workers < 0:
		return fmt.Errorf("sandbox: workers must be 0 (one per CPU) or more, got %d", c.Workers)
	}
	for _, cpu := range c.CPUs {
		if cpu < 0 {
			return fmt.Errorf("sandbox: cpus holds %d; list CPU numbers from 0, as taskset and /proc/cpuinfo number them", cpu)
		}
	}
	return nil
}

// TruncatedMarker ends an output that was cut at Config.MaxOutput bytes.
const TruncatedMarker = "...[truncated]"

// EmptyOutput is the Output of a call that ran and printed nothing.
const EmptyOutput = "(no output: print the result with fmt.Println)"

// maxMessage bounds the length of an error line shown to the policy.
const maxMessage = 200

// Outcome is the full record of one call; Result shapes it into what the
// policy reads.
type Outcome struct {
	Status    envs.Status
	Stdout    string // what the program printed, at most Config.MaxOutput bytes
	Truncated bool   // output beyond Config.MaxOutput was dropped
	// Message is one line naming the failure (compile error, denied import,
	// panic, limit, timeout), without source positions; empty for
	// StatusOK and StatusEmpty.
	Message string
	Error   string        // the full failure text
	Wall    time.Duration // from the call to its answer, waiting for a worker included
}

// Result returns what the policy reads: the printed text (ending with
// TruncatedMarker when cut) for StatusOK, EmptyOutput for StatusEmpty, and
// "error: " and Message otherwise, with the full text in Error.
func (o Outcome) Result() envs.Result {
	switch o.Status {
	case envs.StatusOK:
		if o.Truncated {
			return envs.Result{Status: o.Status, Output: o.Stdout + TruncatedMarker}
		}
		return envs.Result{Status: o.Status, Output: o.Stdout}
	case envs.StatusEmpty:
		return envs.Result{Status: o.Status, Output: EmptyOutput}
	}
	return envs.Result{Status: o.Status, Output: "error: " + o.Message, Error: o.Error}
}

// Sandbox runs Go code in a pool of worker processes. It implements
// envs.Tool and is safe for concurrent use. Workers start with the first
// calls that need them; Close stops them. A Sandbox that is no longer
// referenced stops its workers when it is garbage collected, and workers
// end when the process that started them ends.
type Sandbox struct {
	cfg  Config
	pool *workerpool.Pool
}

var _ envs.Tool = (*Sandbox)(nil)

// New returns a Sandbox with the limits of cfg, or an error when cfg is
// invalid. It starts no process.
func New(cfg Config) (*Sandbox, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := cfg.Workers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	memory := cfg.Memory
	if memory == 0 {
		memory = defaultMemory
	}
	s := &Sandbox{cfg: cfg, pool: newPool(hello{MaxOutput: cfg.MaxOutput, Memory: memory, CPUs: cfg.CPUs}, n)}
	runtime.AddCleanup(s, (*workerpool.Pool).Close, s.pool)
	return s, nil
}

// Call runs input in a fresh interpreter and reports what it printed, as
// Run(ctx, input).Result(). It never panics.
func (s *Sandbox) Call(ctx context.Context, input string) envs.Result {
	return s.Run(ctx, input).Result()
}

// Run runs input in a fresh interpreter on a worker. The program gets
// Config.Timeout from the moment a worker is free, or less when ctx's
// deadline (which also bounds the wait) comes sooner, and Run answers at
// most a quarter second after that, plus a worker's start (tens of
// milliseconds) when one has to be started. Outcomes: StatusOK with the
// printed text; StatusEmpty when nothing was printed; StatusError for a
// refused import or statement, a compile error, a panic, or a limit
// ("memory limit exceeded", "stack overflow", "output limit exceeded"),
// named in Message; StatusTimeout when the timeout passed. When ctx is
// canceled first, the outcome is StatusError "call canceled".
func (s *Sandbox) Run(ctx context.Context, input string) Outcome {
	return s.run(ctx, nil, 0, input)
}

// Close stops all workers, interrupting running calls (they answer
// "sandbox closed"), and returns once every worker process has been
// reaped. Later calls answer "sandbox closed". It always returns nil.
func (s *Sandbox) Close() error {
	s.pool.Close()
	return nil
}

// run runs input on the slot *bound (any free slot when bound is nil or
// *bound is nil, which is then stored in *bound) in the interpreter of
// session (0: a fresh one), for the time left once a worker is free.
func (s *Sandbox) run(ctx context.Context, bound **workerpool.Slot, session uint64, input string) Outcome {
	start := time.Now()
	budget := s.budget(ctx)
	rep := s.pool.Run(ctx, bound, s.budget, request{Session: session, Code: input})
	if rep.Status == envs.StatusTimeout {
		// Name the time the caller allowed, not what was left of it once
		// a worker was free.
		t := workerpool.Timeout(budget)
		rep.Message, rep.Err = t.Message, t.Err
	}
	return Outcome{
		Status:    rep.Status,
		Stdout:    rep.Stdout,
		Truncated: rep.Truncated,
		Message:   rep.Message,
		Error:     rep.Err,
		Wall:      time.Since(start),
	}
}

// budget is the time a call may run from now: Config.Timeout, or less when
// ctx ends sooner.
func (s *Sandbox) budget(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(min(s.cfg.Timeout, time.Until(d)), 0)
	}
	return s.cfg.Timeout
}
