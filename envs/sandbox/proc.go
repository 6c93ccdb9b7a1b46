package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/artist-rl/artist/envs"
	"github.com/artist-rl/artist/internal/frame"
)

// startTimeout bounds how long a new worker may take to report ready.
const startTimeout = 10 * time.Second

// proc is one worker process as the parent sees it.
type proc struct {
	cmd      *exec.Cmd
	requests *os.File // the parent's end of the worker's fd 3
	replies  *os.File // the parent's end of the worker's fd 4
	stderr   *headBuffer
	exited   chan struct{} // closed once the process has been waited for
	killOnce sync.Once
}

// startProc starts a worker from the running executable and waits until it
// has limited itself, at most until ctx ends or startTimeout passes.
func startProc(ctx context.Context, h hello) (*proc, error) {
	exe, err := executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	p := &proc{requests: reqW, replies: repR, stderr: &headBuffer{limit: 4096}, exited: make(chan struct{})}
	p.cmd = &exec.Cmd{
		Path:        exe,
		Args:        []string{"sandbox-worker"},
		Env:         []string{workerEnv + "=" + workerMagic, "GOMAXPROCS=1", "GOTRACEBACK=none"},
		Dir:         "/",
		Stderr:      p.stderr,
		ExtraFiles:  []*os.File{reqR, repW},
		SysProcAttr: procAttr(),
		WaitDelay:   time.Second,
	}
	err = p.cmd.Start()
	reqR.Close()
	repW.Close()
	if err != nil {
		reqW.Close()
		repR.Close()
		return nil, fmt.Errorf("sandbox: start worker: %w", err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	if err := p.handshake(ctx, h); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// handshake sends hello and reads ready.
func (p *proc) handshake(ctx context.Context, h hello) error {
	deadline := time.Now().Add(startTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	var r ready
	err := p.exchange(ctx, &h, &r, deadline)
	switch {
	case err != nil:
		p.kill()
		if line := fatalLine(p.stderr.String()); line != "" {
			err = fmt.Errorf("%w (%s)", err, line)
		}
		return fmt.Errorf("sandbox: start worker: %w", err)
	case r.err != "":
		return fmt.Errorf("sandbox: start worker: %s", r.err)
	}
	return nil
}

// exchange writes out and reads one frame into in, giving up at deadline
// or when ctx ends (with an error wrapping os.ErrDeadlineExceeded).
func (p *proc) exchange(ctx context.Context, out, in frame.Message, deadline time.Time) error {
	_ = p.requests.SetWriteDeadline(deadline)
	_ = p.replies.SetReadDeadline(deadline)
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = p.requests.SetWriteDeadline(time.Unix(1, 0))
		_ = p.replies.SetReadDeadline(time.Unix(1, 0))
	})
	defer func() {
		if !stop() {
			<-fired
		}
	}()
	if err := frame.Write(p.requests, out); err != nil {
		return err
	}
	return frame.Read(p.replies, in)
}

// kill ends the worker's process group and waits until it is reaped. A
// worker already reaped is not signaled: its id may belong to another
// process by now.
func (p *proc) kill() {
	p.killOnce.Do(func() {
		select {
		case <-p.exited:
		default:
			_ = killGroup(p.cmd.Process.Pid)
		}
		<-p.exited
		p.requests.Close()
		p.replies.Close()
	})
}

// death waits for the worker to exit and says what ended it, as the
// status and message of the call that was running, and the runtime's own
// report.
func (p *proc) death() (status envs.Status, msg, report string) {
	status, msg = p.cause()
	return status, msg, strings.TrimSpace(p.stderr.String())
}

// cause waits for the worker to exit and names the limit it hit.
func (p *proc) cause() (envs.Status, string) {
	select {
	case <-p.exited:
	case <-time.After(time.Second):
		p.kill()
	}
	head := p.stderr.String()
	state := p.cmd.ProcessState
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

// headBuffer keeps the first limit bytes written to it: a crashing Go
// runtime writes its reason first.
type headBuffer struct {
	mu    sync.Mutex
	limit int
	b     []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.limit - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}

// isDeadline reports whether err is a read or write deadline passing.
func isDeadline(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }
