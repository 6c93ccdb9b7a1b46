package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/workerpool"
)

// killGrace is how long past a call's timeout the parent waits for the
// worker's own answer before it kills the worker.
const killGrace = 250 * time.Millisecond

// startTimeout bounds how long a new worker may take to report ready.
const startTimeout = 10 * time.Second

// newPool returns the pool of n workers configured by h.
func newPool(h hello, n int) *workerpool.Pool {
	return workerpool.New(workerpool.Config{
		Name:      "sandbox",
		Workers:   n,
		Start:     func(ctx context.Context) (*workerpool.Proc, error) { return startProc(ctx, h) },
		KillGrace: killGrace,
		Explain:   explain,
	})
}

// startProc starts a worker from the running executable and waits until it
// has limited itself, at most until ctx ends or startTimeout passes.
func startProc(ctx context.Context, h hello) (*workerpool.Proc, error) {
	exe, err := executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	p, err := workerpool.Start(&exec.Cmd{
		Path:        exe,
		Args:        []string{"sandbox-worker"},
		Env:         []string{workerEnv + "=" + workerMagic, "GOMAXPROCS=1", "GOTRACEBACK=none"},
		Dir:         "/",
		SysProcAttr: procAttr(),
		WaitDelay:   time.Second,
	}, 4096)
	if err != nil {
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	var r ready
	if err := p.Handshake(ctx, &h, &r, startTimeout); err != nil {
		if line := fatalLine(p.Stderr()); line != "" {
			err = fmt.Errorf("%w (%s)", err, line)
		}
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	if r.Err != "" {
		p.Kill()
		return nil, fmt.Errorf("sandbox: start worker: %s", r.Err)
	}
	return p, nil
}

// explain says why the worker p stopped answering with err: the limit it
// hit, or how it ended, with the runtime's own report.
func explain(p *workerpool.Proc, err error) workerpool.Reply {
	status, msg := cause(p)
	report := strings.TrimSpace(p.Stderr())
	if report == "" {
		report = fmt.Sprintf("worker stopped answering: %v", err)
	}
	return workerpool.Reply{Status: status, Message: msg, Err: msg + "\n" + report}
}

// cause waits for the worker to exit and names the limit it hit.
func cause(p *workerpool.Proc) (envs.Status, string) {
	p.Reap(time.Second)
	head := p.Stderr()
	state := p.State()
	switch {
	case strings.Contains(head, "out of memory") || strings.Contains(head, "cannot allocate memory") ||
		strings.Contains(head, "failed to create new OS thread"):
		return envs.StatusError, "memory limit exceeded"
	case strings.Contains(head, "stack overflow") || strings.Contains(head, "stack exceeds"):
		return envs.StatusError, "stack overflow"
	case state != nil && cpuLimitHit(state):
		return envs.StatusTimeout, "cpu time limit exceeded"
	}
	msg := "worker exited"
	if state != nil {
		msg = "worker " + state.String()
	}
	if line := fatalLine(head); line != "" {
		msg += ": " + line
	}
	return envs.StatusError, msg
}

// fatalLine returns the first line of a runtime crash report, if any.
func fatalLine(s string) string {
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, "fatal error: ") || strings.HasPrefix(line, "panic: ") {
			return truncate(strings.TrimSpace(line), maxMessage)
		}
	}
	return ""
}
