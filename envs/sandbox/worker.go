package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
	"github.com/artist-rl/artist/internal/workerpool"
)

// workerEnv, set to workerMagic in a process's environment, makes this
// package's init serve as a worker instead of running the program's main:
// any binary that links the package (the artist command, a test binary) can
// be re-executed as a worker.
const (
	workerEnv   = "ARTIST_SANDBOX_WORKER"
	workerMagic = "v1"
)

// maxSessions bounds the stateful interpreters one worker keeps; the least
// recently used is dropped beyond it.
const maxSessions = 256

func init() {
	if os.Getenv(workerEnv) != workerMagic {
		return
	}
	os.Exit(serveWorker(os.NewFile(3, "requests"), os.NewFile(4, "replies")))
}

// serveWorker reads the hello frame, limits the process and answers
// requests one at a time until the parent closes the request pipe or a
// reply says the worker retires. It returns the exit code.
func serveWorker(in io.Reader, out io.Writer) int {
	var h hello
	if err := frame.Read(in, &h); err != nil {
		return 3
	}
	if err := pinCPUs(h.CPUs); err != nil {
		_ = frame.Write(out, &ready{Err: err.Error()})
		return 3
	}
	if err := applyLimits(h.Memory); err != nil {
		_ = frame.Write(out, &ready{Err: err.Error()})
		return 3
	}
	s, err := newServer(h)
	if err != nil {
		_ = frame.Write(out, &ready{Err: err.Error()})
		return 3
	}
	if frame.Write(out, &ready{}) != nil {
		return 3
	}
	for {
		var req request
		if err := frame.Read(in, &req); err != nil {
			return 0
		}
		rep := s.handle(req)
		rep.Seq = req.Seq
		if frame.Write(out, &rep) != nil || rep.Retire {
			return 0
		}
	}
}

// server runs requests inside a worker.
type server struct {
	hello
	goroutines int // running when idle
	sessions   map[uint64]*machine
	clock      uint64
}

// newServer runs one snippet to load what the first evaluation needs, then
// records the idle goroutine count.
func newServer(h hello) (*server, error) {
	s := &server{hello: h, sessions: map[uint64]*machine{}, goroutines: runtime.NumGoroutine()}
	if rep := s.handle(request{Code: "_ = fmt.Sprint(1)", Timeout: 10 * time.Second}); rep.Status != envs.StatusEmpty {
		return nil, fmt.Errorf("sandbox: worker self-test: %s %s", rep.Status, rep.Err)
	}
	if !s.settle() {
		s.goroutines = runtime.NumGoroutine()
	}
	return s, nil
}

// handle runs one request.
func (s *server) handle(req request) reply {
	for _, id := range req.Drop {
		delete(s.sessions, id)
	}
	src, err := parseSource(req.Code)
	if err != nil {
		return reply{Status: envs.StatusError, Message: errorMessage(err), Err: err.Error()}
	}
	m, err := s.machine(req.Session)
	if err != nil {
		return reply{Status: envs.StatusError, Message: errorMessage(err), Err: err.Error(), Retire: true}
	}
	ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
	defer cancel()
	stdout := &cappedWriter{limit: s.MaxOutput, stopAfter: outputStop(s.MaxOutput), stop: cancel}
	stderr := &cappedWriter{limit: s.MaxOutput}
	limitCPU(req.Timeout)
	err = m.eval(ctx, src, stdout, stderr)
	rep := outcome(err, ctx, stdout, stderr, req.Timeout)
	rep.Retire = !s.settle() || s.grown()
	return rep
}

// machine returns a fresh interpreter for session 0, else the session's.
func (s *server) machine(session uint64) (*machine, error) {
	if session == 0 {
		return newMachine(false)
	}
	s.clock++
	if m, ok := s.sessions[session]; ok {
		m.used = s.clock
		return m, nil
	}
	m, err := newMachine(true)
	if err != nil {
		return nil, err
	}
	if len(s.sessions) >= maxSessions {
		s.evict()
	}
	m.used = s.clock
	s.sessions[session] = m
	return m, nil
}

// evict drops the least recently used session.
func (s *server) evict() {
	var oldest uint64
	var at uint64 = ^uint64(0)
	for id, m := range s.sessions {
		if m.used < at {
			oldest, at = id, m.used
		}
	}
	delete(s.sessions, oldest)
}

// settle waits briefly for goroutines of the last evaluation to end and
// reports whether they did. One that keeps running (a stopped program
// inside a long library call) means the worker must not be reused.
func (s *server) settle() bool {
	deadline := time.Now().Add(50 * time.Millisecond)
	for runtime.NumGoroutine() > s.goroutines {
		if time.Now().After(deadline) {
			return false
		}
		runtime.Gosched()
		time.Sleep(100 * time.Microsecond)
	}
	return true
}

// grown reports whether the memory the runtime holds from the operating
// system passed half the limit. Go keeps heap address space mapped once
// used, so such a worker is replaced to give the next program its full
// allowance.
func (s *server) grown() bool {
	sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Kind() == metrics.KindUint64 && int64(sample[0].Value.Uint64()) > s.Memory/2
}

// outputStop is how many bytes a program may print before it is stopped:
// far more than is kept, so ordinary truncation is not an error, but a
// print loop does not run until its deadline.
func outputStop(maxOutput int) int64 { return max(16*int64(maxOutput), 1<<20) }

// outcome turns the end of an evaluation into a reply.
func outcome(err error, ctx context.Context, stdout, stderr *cappedWriter, timeout time.Duration) reply {
	out, truncated := stdout.Result()
	rep := reply{Stdout: out, Truncated: truncated}
	switch {
	case stdout.Stopped():
		rep.Status = envs.StatusError
		rep.Message = fmt.Sprintf("output limit exceeded: printed more than %d bytes", outputStop(stdout.limit))
		rep.Err = rep.Message
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		t := workerpool.Timeout(timeout)
		rep.Status, rep.Message, rep.Err = t.Status, t.Message, t.Err
	case err != nil:
		if e := stderr.String(); e != "" {
			err = fmt.Errorf("%w\n%s", err, e)
		}
		rep.Status, rep.Message, rep.Err = envs.StatusError, errorMessage(err), err.Error()
	case out == "" && !truncated:
		rep.Status = envs.StatusEmpty
	default:
		rep.Status = envs.StatusOK
	}
	return rep
}

// maxStack is a worker's goroutine stack limit: an eighth of its memory
// allowance, at most 64 MiB (a recursion about 300,000 calls deep), so that
// unbounded recursion ends soon, as a stack overflow rather than by running
// out of memory.
func maxStack(memory int64) int { return int(min(memory/8, 64<<20)) }
